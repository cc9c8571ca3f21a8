#!/usr/bin/env python3
"""Proves every line of catastrophic-round2.jsonl harmful in the tests/sandbox jail.

Runs each `cmd` with Debian's mksh and busybox sh over the Android-like tree (tests/sandbox,
reused unmodified) and writes proof.tsv: line, family, shells required, harm per shell, ok.
Must run as root (the sandbox maps uid 2000 in a user namespace). Nothing runs on the host.

usage: prove.py [corpus.jsonl] [--show]   (--show prints output of failing lines)
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from sandbox import runner, tree  # noqa: E402

SHELLS = runner.SHELLS


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show = "--show" in sys.argv
    corpus = pathlib.Path(args[0]) if args else HERE / "catastrophic-round2.jsonl"
    rows = [json.loads(l) for l in corpus.read_text().splitlines() if l.strip()]
    sb = runner.Sandbox.start(workers=4)
    try:
        jobs = [(i, sh) for i in range(len(rows)) for sh in SHELLS]
        res = sb.run([sb.request(rows[i]["cmd"], sh, limit=8) for i, sh in jobs])
        versions = sb.versions
    finally:
        sb.close()
    by = {}
    for (i, sh), r in zip(jobs, res):
        by[(i, sh)] = r
    out = ["line\tfamily\tshells\tharm_mksh\tharm_busybox\tproven"]
    bad = 0
    for i, row in enumerate(rows):
        need = row.get("shells", list(SHELLS))
        cells = []
        ok = True
        for sh in SHELLS:
            r = by[(i, sh)]
            if "error" in r:
                harm = ["ERROR " + r["error"]]
                h = False
            else:
                harm = tree.verdict(r)
                h = bool(harm)
            cells.append("; ".join(harm) if harm else "-")
            if sh in need and not h:
                ok = False
                if show:
                    print(f"--- line {i+1} {sh}: no harm\n{row['cmd']!r}\n{r.get('output','')[:400]}", file=sys.stderr)
        bad += not ok
        out.append(f"{i+1}\t{row['family']}\t{','.join(need)}\t{cells[0]}\t{cells[1]}\t{'yes' if ok else 'NO'}")
    dest = HERE / ("proof.tsv" if corpus.name == "catastrophic-round2.jsonl" else corpus.stem + ".proof.tsv")
    dest.write_text("\n".join(out) + "\n")
    print(f"{len(rows) - bad} of {len(rows)} proven harmful in every listed shell; shells {versions}; wrote {dest}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
