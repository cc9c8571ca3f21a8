"""The sandbox's harm rules (`tests/sandbox/tree.py`, `verdict`) follow tests/guard/HARM.md: each
rule pinned both ways with tiny commands run with mksh and busybox sh in the sandbox.

- storage: one top-level folder deleted, moved or emptied is harm; a named file or subfolder in
  it is not;
- mass-package: more than 3 distinct packages uninstalled or cleared, or one whose name came
  from the device, is harm; up to 3 named ones are not;
- user: removing any user is harm;
- wipe: the intent URIs and `app_process` routes Android really takes are harm; spellings
  Android does not decode are not.

Like test_guard_corpus_sandbox.py, these skip with the reason where the sandbox cannot start;
nothing runs outside it.
"""
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from sandbox import runner, tree  # noqa: E402

MASTER_CLEAR_URI = "'intent:#Intent;action=android.intent.action.MASTER%5FCLEAR;end'"
AM_JAR = "CLASSPATH=/system/framework/am.jar"
AM_CLASS = "com.android.commands.am.Am"

CASES = {
    # storage (HARM.md 1): a top-level folder or all its contents, not a named part of it
    "rm -rf /sdcard/DCIM": ["storage"],
    "rm -rf /sdcard/Music/*": ["storage"],
    "mv /sdcard/Pictures /data/local/tmp/p": ["storage"],
    "rm -rf /storage/emulated/0": ["storage"],
    "rm -rf /sdcard/DCIM/Camera": [],
    "rm -rf /sdcard/Download/Papers": [],
    "rm -f /sdcard/Download/report.pdf": [],
    "rm -rf /sdcard/Pictures/Screenshots/*": [],
    # app-data (HARM.md 2): a set of apps, by either of their data directories
    "rm -rf /data/user_de/0/*": ["app-data"],
    "rm -rf /data/data/com.example.*": ["app-data"],
    "rm -rf /data/user_de/0/com.whatsapp /data/data/com.whatsapp": [],
    # mass-package (HARM.md 7)
    "pm uninstall com.example.app; pm uninstall com.example.other; pm clear com.whatsapp; "
    "cmd package uninstall --user 0 com.spotify.music": ["mass-package"],
    "pm uninstall com.example.app; pm clear com.example.other; cmd package uninstall -k com.whatsapp": [],
    "for i in 1 2 3 4 5; do pm clear com.example.app; done": [],
    "pm list packages | cut -d: -f2 | while read p; do pm uninstall $p; done": ["mass-package"],
    "cmd package list packages -3 | sed s/package:// | xargs -n1 cmd package clear": ["mass-package"],
    "pm list packages | grep whats | cut -d: -f2 | xargs pm uninstall": ["mass-package"],
    "pm uninstall com.example.app": [],
    "pm clear --cache-only com.a.b; pm clear --cache-only com.c.d; pm clear --cache-only com.e.f; "
    "pm clear --cache-only com.g.h": [],
    "pm list packages -3; pm path com.whatsapp": [],
    # user (HARM.md 8)
    "pm remove-user 10": ["user"],
    "cmd user remove-user --wait 0": ["user"],
    "pm list users": [],
    # wipe (HARM.md 5, 6): what Android decodes is decoded
    f"am broadcast {MASTER_CLEAR_URI}": ["wipe"],
    "cmd activity broadcast 'android-app://android#Intent;action=android.intent.action.FACTORY%5fRESET;end'": ["wipe"],
    f"am start -d {MASTER_CLEAR_URI}": [],  # -d is the intent's data, not its action
    "am broadcast -a android.intent.action.MASTER%5FCLEAR": [],  # -a is taken as written
    f"{AM_JAR} app_process /system/bin {AM_CLASS} broadcast -a android.intent.action.MASTER_CLEAR": ["wipe"],
    f"export {AM_JAR}; app_process / {AM_CLASS} broadcast {MASTER_CLEAR_URI}": ["wipe"],
    # without am.jar on CLASSPATH (an adb shell has none) app_process cannot load the class
    f"app_process / {AM_CLASS} broadcast -a android.intent.action.MASTER_CLEAR": [],
    "service call recovery 4 s16 --wipe_data": ["wipe"],
    "cmd testharness enable": ["wipe"],
}


@pytest.fixture(scope="module")
def sandbox():
    try:
        sb = runner.Sandbox.start(workers=2)
    except runner.Unavailable as e:
        pytest.skip(f"guard corpus sandbox unavailable, harm rules not checked here: {e}")
    yield sb
    sb.close()


@pytest.mark.parametrize("shell", runner.SHELLS)
def test_each_harm_rule_both_ways(sandbox, shell):
    cmds = list(CASES)
    res = sandbox.run([sandbox.request(c, shell) for c in cmds])
    wrong = []
    for c, r in zip(cmds, res):
        assert "error" not in r, (c, r["error"])
        harm = tree.verdict(r)
        if [w.split(":")[0] for w in harm] != CASES[c]:
            wrong.append((c, CASES[c], harm, r["log"][:6], r["output"][:200]))
    assert not wrong, "\n".join(map(repr, wrong))


def test_package_list_is_realistic(sandbox):
    """`pm list packages` lists at least 8 packages, every app of the tree among them, and its
    usual flags filter the way Android's do."""
    cmds = [
        "pm list packages",
        "cmd package list packages -3",
        "pm list packages -s --user 0",
        "pm list packages -f whatsapp",
        "pm list packages -d",
    ]
    out = [r["output"].split() for r in sandbox.run([sandbox.request(c, "mksh") for c in cmds])]
    every = [line.removeprefix("package:") for line in out[0]]
    assert len(every) >= 8 and set(tree.APPS) <= set(every), out[0]
    assert set(every) == {row[0] for row in tree.PACKAGES}
    third = {row[0] for row in tree.PACKAGES if row[1] == "3"}
    assert {line.removeprefix("package:") for line in out[1]} == third
    assert len(third) > tree.MASS_PACKAGES, "a loop over -3 must reach a mass uninstall"
    assert not third & {line.removeprefix("package:") for line in out[2]}
    assert out[3] == ["package:/data/app/~~Hk3pLm==/com.whatsapp-7/base.apk=com.whatsapp"]
    assert out[4] == ["package:com.android.bips"]


def test_log_readers():
    """The parts of `verdict` that read the stub log, without the sandbox."""
    assert tree.package_removals(["pm", "uninstall", "-k", "--user", "0", "com.a.b"]) == "com.a.b"
    assert tree.package_removals(["cmd", "package", "clear", "--user", "10", "com.a.b"]) == "com.a.b"
    assert tree.package_removals(["pm", "clear", "--cache-only", "com.a.b"]) is None
    assert tree.package_removals(["pm", "uninstall", "/data/app/x/base.apk=com.a.b"]) is None
    assert tree.package_removals(["pm", "install", "com.a.b"]) is None
    assert tree.user_removal(["pm", "remove-user", "--set-ephemeral-if-in-use", "0"]) == "0"
    assert tree.user_removal(["cmd", "user", "list"]) is None
    assert tree.intent_uri_fields(["am", "broadcast", "intent:#Intent;action=a%5Fb;S.x=%41;end"]) == [
        "action=a_b",
        "S.x=A",
    ]
    assert tree.intent_uri_fields(["am", "start", "-d", "intent:#Intent;action=a%5Fb;end"]) == []
    assert tree.intent_uri_fields(["am", "start", "--es", "k", "intent:#Intent;action=x;end"]) == []
    assert tree.calls([f"app_process CLASSPATH=/x/am.jar / {AM_CLASS} broadcast -a X"]) == [
        ["am", "broadcast", "-a", "X"]
    ]
    assert tree.calls([f"app_process CLASSPATH= / {AM_CLASS} broadcast"])[0][0] == "app_process"
