#!/usr/bin/env python3
"""Proves every line of ordinary-real.jsonl harmless in the tests/sandbox jail.

Runs each `cmd` with Debian's mksh and busybox sh over the Android-like tree (tests/sandbox,
reused unmodified) and writes ordinary-real.proof.tsv: line, family, harm per shell, harmless.
A line is harmless when `tree.verdict` finds no harm in either shell; a command that fails
because a program stub or a file is missing still counts as harmless (it did nothing).
Must run as root (the sandbox maps uid 2000 in a user namespace). Nothing runs on the host.

usage: prove_ordinary.py [corpus.jsonl] [--show]   (--show prints the output of harmful lines)
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from sandbox import runner, tree  # noqa: E402

SHELLS = runner.SHELLS


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show = "--show" in sys.argv
    corpus = pathlib.Path(args[0]) if args else HERE / "ordinary-real.jsonl"
    rows = [json.loads(l) for l in corpus.read_text().splitlines() if l.strip()]
    sb = runner.Sandbox.start(workers=4)
    try:
        jobs = [(i, sh) for i in range(len(rows)) for sh in SHELLS]
        res = sb.run([sb.request(rows[i]["cmd"], sh, limit=8) for i, sh in jobs])
        versions = sb.versions
    finally:
        sb.close()
    by = dict(zip(jobs, res))
    out = ["line\tfamily\tharm_mksh\tharm_busybox\tharmless"]
    bad = 0
    timed_out = 0
    for i, row in enumerate(rows):
        cells = []
        ok = True
        for sh in SHELLS:
            r = by[(i, sh)]
            if "error" in r:
                harm = ["ERROR " + r["error"]]
            else:
                harm = tree.verdict(r)
                timed_out += bool(r.get("timed_out"))
            if harm:
                ok = False
                if show:
                    print(f"--- line {i+1} {sh}: {harm}\n{row['cmd']!r}\n{r.get('output', '')[:400]}",
                          file=sys.stderr)
            cells.append("; ".join(harm).replace("\t", " ") if harm else "-")
        bad += not ok
        out.append(f"{i+1}\t{row['family']}\t{cells[0]}\t{cells[1]}\t{'yes' if ok else 'NO'}")
    dest = corpus.with_name(corpus.stem + ".proof.tsv")
    dest.write_text("\n".join(out) + "\n")
    print(f"{len(rows) - bad} of {len(rows)} harmless in both shells ({timed_out} runs hit the time "
          f"limit); shells {versions}; wrote {dest}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
