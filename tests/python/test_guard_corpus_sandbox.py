"""The guard corpora's labels are true: every command runs with Debian's mksh and busybox sh in a
sandbox holding an Android-like tree (tests/sandbox/), and a catastrophic command must harm it
while an ordinary one must not.

- `tests/guard/catastrophic.jsonl`: must do one of tests/guard/HARM.md's harms (`tree.verdict`:
  the storage or a top-level folder of it, a set of apps' data, the OS image or system state, a
  block device, the recovery command file, a wipe, a mass uninstall or clear, a user removed),
  in every shell its `shells` lists (default both; a narrower list says why in `shells_why`,
  e.g. toybox's `rm` refuses a bare `/`).
- `tests/guard/ordinary.jsonl`: must do none of them, in both shells.

The sandbox needs root outside and user namespaces (CI has both). Where it cannot start, these
tests skip with the reason; nothing is ever run outside it.
"""
import json
import os
import pathlib
import sys
import time
from collections import Counter, defaultdict

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from sandbox import runner, tree  # noqa: E402

CORPORA = ROOT / "tests" / "guard"
SHELLS = runner.SHELLS
FAMILIES_CATASTROPHIC = {
    "plain", "quoting", "variables", "runner", "computed", "alias-path", "block", "format", "wipe",
}


def load(name: str) -> list[dict]:
    rows = []
    for n, line in enumerate((CORPORA / name).read_text().splitlines(), 1):
        row = json.loads(line)
        row["line"] = n
        rows.append(row)
    return rows


CATASTROPHIC = load("catastrophic.jsonl")
ORDINARY = load("ordinary.jsonl")


def proven_shells(row: dict) -> list[str]:
    return row.get("shells", list(SHELLS))


def test_corpora_are_well_formed_and_large_enough():
    assert len(CATASTROPHIC) >= 220, len(CATASTROPHIC)
    assert len(ORDINARY) >= 110, len(ORDINARY)
    keys = {"family", "cmd", "note", "shells", "shells_why", "sandbox", "why", "line"}
    for row in CATASTROPHIC + ORDINARY:
        assert set(row) <= keys, row
        assert row["cmd"].strip() and row["note"].strip() and row["family"].strip(), row
        if "shells" in row:
            assert row["shells"] and set(row["shells"]) <= set(SHELLS), row
            assert row.get("shells_why"), f"a narrower shells list says why: {row}"
        if row.get("sandbox") == "skip":
            assert row.get("why"), f"a sandbox skip says why: {row}"
    for rows in (CATASTROPHIC, ORDINARY):
        dup = [c for c, k in Counter(r["cmd"] for r in rows).items() if k > 1]
        assert not dup, dup
    both = {r["cmd"] for r in CATASTROPHIC} & {r["cmd"] for r in ORDINARY}
    assert not both, both
    assert {r["family"] for r in CATASTROPHIC} == FAMILIES_CATASTROPHIC
    assert all("shells" not in r for r in ORDINARY), "ordinary commands are harmless in every shell"
    skipped = [r for r in CATASTROPHIC + ORDINARY if r.get("sandbox") == "skip"]
    assert len(skipped) <= 10, skipped


@pytest.fixture(scope="module")
def sandbox():
    try:
        sb = runner.Sandbox.start(workers=2)
    except runner.Unavailable as e:
        pytest.skip(f"guard corpus sandbox unavailable, labels not proven here: {e}")
    yield sb
    sb.close()


def run_all(sb, cmds: list[tuple[str, str]]) -> list[dict]:
    res = sb.run([sb.request(c, sh) for c, sh in cmds])
    errors = [(c, sh, r["error"]) for (c, sh), r in zip(cmds, res) if "error" in r]
    assert not errors, errors
    return res


def test_sandbox_cannot_touch_the_machine(sandbox, tmp_path):
    """A canary beside the sandbox's own directories, writable by everyone, survives commands
    that delete everything they can reach and that name it by its real path; none sees it."""
    canary_dir = sandbox.base / "canary"
    canary_dir.mkdir()
    os.chmod(canary_dir, 0o777)
    canary = canary_dir / "canary.txt"
    canary.write_text("canary-7f3a\n")
    os.chmod(canary, 0o666)
    outside = tmp_path / "outside.txt"
    outside.write_text("outside-91c2\n")
    attempts = [
        f"cat {canary}; ls {canary_dir}; rm -rf {canary_dir} {canary}",
        f"echo pwned > {canary}; echo pwned > {outside}",
        "cd /; cd ..; cd ..; ls -la; rm -rf *",
        "cd /proc/1/root/../../..; ls; rm -rf ./*",
        "find / -name 'canary*' 2>/dev/null; grep -r canary-7f3a / 2>/dev/null",
        f"ls {sandbox.base} /tmp /root /work 2>&1",
        "rm -rf /. ; rm -rf /",
        "toybox mount -t tmpfs none /data/local/tmp; echo toy=$?; busybox mount -t tmpfs none /data/local/tmp; echo bb=$?",
        "id -u; ls /sys /dev; cat /proc/self/status 2>&1 | head -1",
    ]
    for shell in SHELLS:
        res = run_all(sandbox, [(a, shell) for a in attempts])
        for a, r in zip(attempts, res):
            assert "canary-7f3a" not in r["output"], (shell, a, r["output"])
            assert "outside-91c2" not in r["output"], (shell, a, r["output"])
        assert canary.read_text() == "canary-7f3a\n"
        assert outside.read_text() == "outside-91c2\n"
        mount_out = res[7]["output"]
        assert "toy=0" not in mount_out and "bb=0" not in mount_out, mount_out
        ident = res[8]["output"].split()
        assert ident[0] == "2000", res[8]["output"]
        assert "status" not in res[8]["output"] or "No such file" in res[8]["output"], res[8]["output"]


def test_each_kind_of_harm_is_detected_and_a_harmless_command_is_not(sandbox):
    """The label check is not vacuous: one command per kind of harm, and a harmless one."""
    cases = {
        "ls -la /sdcard/ /data/data; rm -f /sdcard/Download/report.pdf": [],
        "rm -rf /sdcard/DCIM /sdcard/Music": ["storage"],
        "rm -rf /data/data/com.whatsapp /data/data/com.example.app": ["app-data"],
        "echo x > /vendor/build.prop": ["os"],
        "echo x >> /dev/block/sda1": ["block"],
        "echo --wipe_data > /cache/recovery/command": ["recovery"],
        "fastboot erase userdata": ["wipe"],
        "pm list packages | cut -d: -f2 | xargs -n1 pm clear": ["mass-package"],
        "pm remove-user 10": ["user"],
    }
    cmds = list(cases)
    for shell in SHELLS:
        res = run_all(sandbox, [(c, shell) for c in cmds])
        for c, r in zip(cmds, res):
            kinds = [w.split(":")[0] for w in tree.verdict(r)]
            assert kinds == cases[c], (shell, c, tree.verdict(r), r["output"])


def test_corpus_labels_hold_in_mksh_and_busybox(sandbox):
    rows = [(r, True) for r in CATASTROPHIC] + [(r, False) for r in ORDINARY]
    rows = [(r, cat) for r, cat in rows if r.get("sandbox") != "skip"]
    jobs = [(r["cmd"], sh) for r, _ in rows for sh in SHELLS]
    started = time.monotonic()
    res = run_all(sandbox, jobs)
    elapsed = time.monotonic() - started
    by = {(c, sh): r for (c, sh), r in zip(jobs, res)}

    wrong = []
    table: dict[tuple[str, str], Counter] = defaultdict(Counter)
    timed_out = 0
    for row, catastrophic in rows:
        kind = "catastrophic" if catastrophic else "ordinary"
        key = (kind, row["family"])
        table[key]["commands"] += 1
        for sh in SHELLS:
            r = by[(row["cmd"], sh)]
            timed_out += r["timed_out"]
            harm = tree.verdict(r)
            if catastrophic:
                if harm:
                    table[key][f"harm_{sh}"] += 1
                elif sh in proven_shells(row):
                    wrong.append((kind, sh, row["line"], row["cmd"], "no harm", r["output"][:200]))
            else:
                if harm:
                    wrong.append((kind, sh, row["line"], row["cmd"], harm, r["output"][:200]))
                else:
                    table[key][f"clean_{sh}"] += 1
        if catastrophic and "shells" in row:
            table[key]["narrowed"] += 1

    lines = [f"{'corpus':<13} {'family':<11} {'cmds':>4} {'mksh':>5} {'busybox':>7} {'narrowed':>8}"]
    for (kind, fam), c in sorted(table.items()):
        col = "harm" if kind == "catastrophic" else "clean"
        lines.append(
            f"{kind:<13} {fam:<11} {c['commands']:>4} {c[col + '_mksh']:>5} "
            f"{c[col + '_busybox']:>7} {c['narrowed']:>8}"
        )
    skipped = sum(r.get("sandbox") == "skip" for r in CATASTROPHIC + ORDINARY)
    lines.append(
        f"{len(jobs)} runs in {elapsed:.1f} s on {len(sandbox.jails)} jails; "
        f"{timed_out} hit the time limit; {skipped} sandbox skips; shells {sandbox.versions}"
    )
    summary = "\n".join(lines)
    print("\n" + summary)
    assert not wrong, "mislabelled:\n" + "\n".join(map(repr, wrong)) + "\n" + summary
