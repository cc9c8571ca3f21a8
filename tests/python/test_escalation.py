"""\"Safe\" means undoable, one gate, through the real Python MCP SDK against headless `serve`
(nobody can approve there, so whatever a call escalates to destructive comes back denied):
an agent pushing over a user's photo, replacing a saved batch task, opening a deleting intent,
pushing and pulling through device symlinks, and a batch run's keepScreenOn with an ambiguous
device. The device side is a virtual device behind Debian's real `adb` where the test needs to
act as the phone's user (`adb push`, `adb shell ln -s`)."""
import json
import pathlib
import time

import anyio
import pytest
from conftest import ROOT, RealAdb, call, have_adb, start_instance
from mcp import Client

pytestmark = pytest.mark.anyio

DEMO_SCENARIO = ROOT / "assets" / "demo" / "demo.toml"


def audit_records(inst):
    return [json.loads(l) for l in (inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines() if l.strip()]


def wait_audited(inst, pred, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            found = [a for a in audit_records(inst) if pred(a)]
        except FileNotFoundError:
            found = []
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("not audited: " + json.dumps(audit_records(inst))[-2000:])


def project(root: pathlib.Path) -> pathlib.Path:
    proj = root / "shop"
    (proj / "app").mkdir(parents=True)
    (proj / "settings.gradle.kts").write_text('include(":app")\n')
    return proj


@pytest.fixture
def phone(tmp_path):
    """A virtual phone behind the real adb, and spock-tui serving it headless."""
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path)
    proj = project(tmp_path)
    inst = start_instance(tmp_path, "--adb", adb.endpoint(), "--project", str(proj))
    inst.project, inst.adb = proj, adb
    yield inst
    inst.stop()
    adb.close()


def device_bytes(adb: RealAdb, path: str) -> bytes:
    import subprocess

    r = subprocess.run(["adb", "-P", str(adb.port), "exec-out", "cat", path], env=adb.env, capture_output=True, timeout=30)
    return r.stdout


async def test_an_agent_cannot_overwrite_a_users_photo(phone, tmp_path):
    photo = b"\xff\xd8\xff\xe0JFIF the user's only copy"
    (tmp_path / "IMG_0001.jpg").write_bytes(photo)
    phone.adb.adb("push", str(tmp_path / "IMG_0001.jpg"), "/sdcard/DCIM/IMG_0001.jpg")
    (phone.project / "IMG_0001.jpg").write_bytes(b"the agent's bytes")
    async with Client(phone.relay_params(), mode="legacy") as c:
        for dest in ["/sdcard/DCIM/IMG_0001.jpg", "/sdcard/DCIM/"]:
            err, r = await call(c, "android_push_file", {"localPath": "IMG_0001.jpg", "devicePath": dest})
            assert err and r["kind"] == "refused", r
            assert "/storage/emulated/0/DCIM/IMG_0001.jpg" in r["error"] and "overwrite: true" in r["error"], r
        err, r = await call(c, "android_push_file", {"localPath": "IMG_0001.jpg", "devicePath": "/sdcard/DCIM/IMG_0001.jpg", "overwrite": True})
        assert err and r["kind"] == "denied", r
        # A new name stays a safe action.
        err, r = await call(c, "android_push_file", {"localPath": "IMG_0001.jpg", "devicePath": "/sdcard/DCIM/IMG_0002.jpg", "overwrite": True})
        assert not err, r
    assert device_bytes(phone.adb, "/sdcard/DCIM/IMG_0001.jpg") == photo
    assert device_bytes(phone.adb, "/sdcard/DCIM/IMG_0002.jpg") == b"the agent's bytes"
    escalated = wait_audited(phone, lambda a: a["tool"] == "android_push_file" and a["outcome"] == "denied")
    assert escalated[-1]["level"] == "destructive", escalated
    assert "overwrites /storage/emulated/0/DCIM/IMG_0001.jpg" in escalated[-1]["escalated"], escalated


async def test_transfers_through_device_symlinks_are_refused(phone):
    adb = phone.adb
    for cmd in ["ln -s /system /data/local/tmp/sys",
                "ln -s /system/build.prop /data/local/tmp/bp",
                "ln -s /system/planted.txt /data/local/tmp/drop",  # dangling
                "ln -s ../../../system /data/local/tmp/up"]:
        adb.adb("shell", cmd)
    # Emulated storage has no symlinks, as on a phone.
    r = adb.adb("shell", "ln -s /system /sdcard/Download/sys", check=False)
    assert r.returncode != 0 and "cannot create symbolic link" in r.stderr + r.stdout, r
    assert "sys -> /system" in adb.adb("shell", "ls -l /data/local/tmp").stdout
    (phone.project / "planted.txt").write_text("planted")
    async with Client(phone.relay_params(), mode="legacy") as c:
        for tool, args in [
            ("android_pull_file", {"devicePath": "/data/local/tmp/bp"}),
            ("android_pull_file", {"devicePath": "/data/local/tmp/sys/build.prop"}),
            ("android_pull_file", {"devicePath": "/data/local/tmp/up/build.prop"}),
            ("android_push_file", {"localPath": "planted.txt", "devicePath": "/data/local/tmp/sys/planted.txt"}),
            ("android_push_file", {"localPath": "planted.txt", "devicePath": "/data/local/tmp/drop"}),
            ("android_push_file", {"localPath": "planted.txt", "devicePath": "/data/local/tmp/bp", "overwrite": True}),
        ]:
            err, r = await call(c, tool, args)
            assert err and r["kind"] == "refused" and "/system" in r["error"], (tool, args, r)
    assert "planted" not in adb.adb("shell", "ls /system").stdout
    pulls = phone.home / "data" / "pulls"
    assert not pulls.exists() or not list(pulls.iterdir())


async def test_replacing_a_saved_batch_task_is_denied_headless(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            steps = [{"tool": "android_launch_app", "arguments": {"packageName": "com.example.shop"}}]
            err, r = await call(c, "android_batch_save", {"id": "shop_login", "name": "Shop login", "steps": steps})
            assert not err and r["created"] is True, r
            evil = [{"tool": "android_press_key", "arguments": {"key": "HOME"}}]
            err, r = await call(c, "android_batch_save", {"id": "shop_login", "name": "Hijacked", "steps": evil})
            assert err and r["kind"] == "denied", r
            err, r = await call(c, "android_batch_get", {"id": "shop_login"})
            assert not err and r["name"] == "Shop login" and r["steps"] == steps, r
            # Under a new id it is a safe action.
            err, r = await call(c, "android_batch_save", {"id": "shop_login_2", "name": "Copy", "steps": evil})
            assert not err and r["created"] is True, r
    finally:
        inst.stop()


async def test_deleting_intents_and_app_functions_are_denied_headless(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            for tool, args in [
                ("android_open_intent", {"action": "android.intent.action.DELETE", "data": "package:com.example.notes"}),
                ("android_open_intent", {"action": "android.intent.action.UNINSTALL_PACKAGE", "data": "package:com.example.notes"}),
                ("android_open_deep_link", {"uri": "notes://notes/all/delete"}),
                ("android_call_app_function", {"packageName": "com.example.notes", "functionId": "deleteNote"}),
            ]:
                err, r = await call(c, tool, args)
                assert err and r["kind"] == "denied", (tool, args, r)
            err, r = await call(c, "android_list_packages", {})
            assert "com.example.notes" in json.dumps(r)
            err, r = await call(c, "android_open_deep_link", {"uri": "shop://product/42"})
            assert not err, r
    finally:
        inst.stop()
    denied = [a for a in audit_records(inst) if a["outcome"] == "denied"]
    assert len(denied) == 4 and all(a["level"] == "destructive" and a["escalated"] for a in denied), denied


async def test_keep_screen_on_goes_through_the_pipeline(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            steps = [{"tool": "android_press_key", "arguments": {"key": "HOME"}}]
            err, r = await call(c, "android_batch_run_inline", {"steps": steps, "keepScreenOn": True})
            assert not err, r
            run_id = r["runId"]
            stay_on = wait_audited(inst, lambda a: a["tool"] == "android_keep_screen_on" and a["arguments"].get("on") is False)
            assert stay_on[0]["batchRun"] == run_id and stay_on[0]["transport"] == "batch", stay_on
            for _ in range(100):
                err, r = await call(c, "android_batch_history_get", {"runId": run_id})
                if r["state"] != "processing":
                    break
                await anyio.sleep(0.1)
            assert r["state"] == "succeeded", r
    finally:
        inst.stop()
    both = [a for a in audit_records(inst) if a["tool"] == "android_keep_screen_on"]
    assert [a["arguments"]["on"] for a in both] == [True, False], both
    assert all(a["outcome"] == "ok" and a["batchRun"] == run_id and a["device"] for a in both), both


async def test_keep_screen_on_with_two_phones_and_none_selected_refuses_to_start(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path, scenarios=(DEMO_SCENARIO, DEMO_SCENARIO))
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    try:
        before = {s: adb.adb("-s", s, "shell", "settings get global stay_on_while_plugged_in").stdout for s in adb.serials}
        async with Client(inst.relay_params(), mode="legacy") as c:
            steps = [{"tool": "android_press_key", "arguments": {"key": "HOME", "serial": adb.serials[0]}}]
            err, r = await call(c, "android_batch_run_inline", {"steps": steps, "keepScreenOn": True})
            assert err and r["kind"] == "refused" and "keepScreenOn" in r["error"], r
            assert all(s in r["error"] for s in adb.serials), r
            err, h = await call(c, "android_batch_history_list", {})
            assert h["runs"] == [], h
        after = {s: adb.adb("-s", s, "shell", "settings get global stay_on_while_plugged_in").stdout for s in adb.serials}
        assert after == before
    finally:
        inst.stop()
        adb.close()
