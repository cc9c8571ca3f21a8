"""The ORDINARY-real corpus stays usable: `tests/guard/ordinary-real.jsonl` holds real commands
people run through `adb shell`, each with the public page it was taken from, and every one of
them is harmless in the sandbox (tests/sandbox/) with Debian's mksh and busybox sh.

"Harmless" is `tree.verdict` finding no harm: no two top-level storage folders, no two apps'
data, nothing of the OS image or system state, no block device, no recovery command file, no
wipe passed to an Android stub. A command that fails because a stub or a file is missing did
nothing, so it is harmless too. `tests/guard/prove_ordinary.py` runs the same check and writes
`ordinary-real.proof.tsv`.

The sandbox needs root outside and user namespaces (CI has both). Where it cannot start, the
harmlessness test skips with the reason; nothing is ever run outside it.
"""
import json
import pathlib
import sys
import time
from collections import Counter

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from sandbox import runner, tree  # noqa: E402

CORPUS = ROOT / "tests" / "guard" / "ordinary-real.jsonl"
SHELLS = runner.SHELLS
FAMILIES = {"app", "files", "settings", "inspect", "shell", "input", "media", "network", "perf"}


def load() -> list[dict]:
    rows = []
    for n, line in enumerate(CORPUS.read_text().splitlines(), 1):
        row = json.loads(line)
        row["line"] = n
        rows.append(row)
    return rows


ROWS = load()


def test_corpus_is_well_formed_and_large_enough():
    assert len(ROWS) >= 300, len(ROWS)
    for row in ROWS:
        assert set(row) == {"family", "cmd", "source", "note", "line"}, row
        assert row["family"] in FAMILIES, row
        assert row["cmd"].strip() and row["cmd"] == row["cmd"].strip(), row
        assert row["note"].strip(), row
        src = row["source"]
        assert src.startswith(("http://", "https://")) and " " not in src, row
    dup = [c for c, k in Counter(r["cmd"] for r in ROWS).items() if k > 1]
    assert not dup, dup
    assert {r["family"] for r in ROWS} == FAMILIES
    # Real commands from many places, not one page.
    domains = {r["source"].split("/")[2].lower().removeprefix("www.") for r in ROWS}
    assert len(domains) >= 10, domains
    catastrophic = {
        json.loads(l)["cmd"]
        for name in ("catastrophic.jsonl", "round2/catastrophic-round2.jsonl")
        if (ROOT / "tests" / "guard" / name).exists()
        for l in (ROOT / "tests" / "guard" / name).read_text().splitlines()
        if l.strip()
    }
    both = {r["cmd"] for r in ROWS} & catastrophic
    assert not both, both


@pytest.fixture(scope="module")
def sandbox():
    try:
        sb = runner.Sandbox.start(workers=4)
    except runner.Unavailable as e:
        pytest.skip(f"guard corpus sandbox unavailable, ordinary-real not proven here: {e}")
    yield sb
    sb.close()


def test_every_real_command_is_harmless_in_mksh_and_busybox(sandbox):
    jobs = [(row, sh) for row in ROWS for sh in SHELLS]
    started = time.monotonic()
    res = sandbox.run([sandbox.request(row["cmd"], sh, limit=8) for row, sh in jobs])
    elapsed = time.monotonic() - started
    errors = [(row["line"], sh, r["error"]) for (row, sh), r in zip(jobs, res) if "error" in r]
    assert not errors, errors

    harmful = []
    clean: Counter = Counter()
    timed_out = 0
    for (row, sh), r in zip(jobs, res):
        timed_out += r["timed_out"]
        harm = tree.verdict(r)
        if harm:
            harmful.append((sh, row["line"], row["cmd"], row["source"], harm, r["output"][:200]))
        else:
            clean[sh] += 1
    summary = (
        f"{len(ROWS)} real commands: {clean['mksh']} harmless in mksh, {clean['busybox']} in "
        f"busybox; {len(jobs)} runs in {elapsed:.1f} s on {len(sandbox.jails)} jails, "
        f"{timed_out} hit the time limit (loops and listeners); shells {sandbox.versions}"
    )
    print("\n" + summary)
    assert not harmful, "harm done by an ordinary command:\n" + "\n".join(map(repr, harmful))
