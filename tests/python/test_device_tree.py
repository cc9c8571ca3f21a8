"""Tool access as a tree (issue 38), through the Python MCP client, the real adb server and two
virtual devices: Inspect and Interact per device (keyed by its identity), Interact limited to
some apps, a change mid-session stopping the next call and telling the session its tool list
changed, the tree kept across a restart, and `--allow-all` lifting it without writing it."""
import json
import time

import anyio
import pytest
from conftest import call, have_adb, start_instance
from mcp import Client
from test_lab import DEMO, AdbServer, Sim
from test_toolsets import ListChanged

pytestmark = pytest.mark.anyio

SHOP = "com.example.shop"
NOTES = "com.example.notes"
LAUNCHER = "com.google.android.apps.nexuslauncher"


@pytest.fixture
def two(tmp_path):
    if not have_adb():
        pytest.fail("adb is required") if __import__("os").environ.get("CI") else pytest.skip("no adb binary")
    parts = []
    try:
        sim = Sim(tmp_path, "tree", "--adbd", "127.0.0.1:0", "--adbd", "127.0.0.1:0", "--device", str(DEMO), "--device", str(DEMO))
        parts.append(sim)
        adb = AdbServer(tmp_path, "tree")
        parts.append(adb)
        d1, d2 = (d["addr"] for d in sim.info["adbd"])
        adb.connect(d1)
        adb.connect(d2)
        yield adb, d1, d2
    finally:
        for p in reversed(parts):
            p.stop()


def write_tree(inst, entries: dict):
    """The config file as a person edits it: one `[access.devices."…"]` table per entry."""
    text = "".join(f"[access.devices.{json.dumps(k)}]\n" + "".join(f"{f} = {json.dumps(v)}\n" for f, v in e.items())
                   for k, e in entries.items())
    (inst.home / "config").mkdir(parents=True, exist_ok=True)
    (inst.home / "config" / "config.toml").write_text(text)


async def identities(c, d1, d2):
    deadline = time.monotonic() + 20
    while True:
        err, r = await call(c, "android_list_devices")
        assert not err, r
        ids = {d["serial"]: d.get("identity") for d in r["devices"]}
        if ids.get(d1) and ids.get(d2):
            assert ids[d1] != ids[d2], ids
            return ids[d1], ids[d2]
        assert time.monotonic() < deadline, r
        await anyio.sleep(0.2)


async def until(what, check, seconds=10):
    """Polls `check` (async, returns (done, last)) until done: the running instance re-reads its
    config file when it changes."""
    deadline = time.monotonic() + seconds
    while True:
        done, last = await check()
        if done:
            return last
        assert time.monotonic() < deadline, f"{what}: {last}"
        await anyio.sleep(0.2)


async def test_inspect_and_interact_per_device_and_per_app(tmp_path, two):
    adb, d1, d2 = two
    inst = start_instance(tmp_path, "--adb", adb.endpoint)
    changed = ListChanged()
    try:
        async with Client(inst.relay_params(), mode="legacy", message_handler=changed) as c:
            id1, id2 = await identities(c, d1, d2)
            # Nothing set: both devices allow everything.
            err, r = await call(c, "android_take_screenshot", {"serial": d1})
            assert not err, r

            # Inspect off on d1: its screenshot is refused naming the branch; d2's works.
            write_tree(inst, {id1: {"inspect": False}})

            async def d1_refused():
                err, r = await call(c, "android_take_screenshot", {"serial": d1})
                return err, r
            r = await until("d1's Inspect never went off", d1_refused)
            assert r["kind"] == "disabled", r
            assert "Inspect is off" in r["error"] and d1 in r["error"] and "Settings" in r["error"], r
            assert f'access.devices."{id1}".inspect' in r["error"], r
            err, r = await call(c, "android_take_screenshot", {"serial": d2})
            assert not err, r
            # Interact on d1 is still on, but an action that sends the screen back reads it.
            err, r = await call(c, "android_launch_app", {"serial": d1, "packageName": NOTES})
            assert not err, r
            err, r = await call(c, "android_tap", {"serial": d1, "x": 10, "y": 10, "returnScreen": "screenshot"})
            assert err and r["kind"] == "disabled" and "returnScreen" in r["error"], r
            err, r = await call(c, "android_tap", {"serial": d1, "x": 10, "y": 10})
            assert not err, r
            # An element action reads the screen to find its element (and says what it found):
            # Inspect covers it, and the shell too.
            err, r = await call(c, "android_tap_element", {"serial": d1, "element": "Notes"})
            assert err and r["kind"] == "disabled" and "which Inspect covers" in r["error"], r
            err, r = await call(c, "android_run_adb_command", {"serial": d1, "command": "shell screencap -p", "reason": "read the screen raw"})
            assert err and r["kind"] == "disabled" and "which Inspect covers" in r["error"], r
            # The session was told its tool list changed.
            with anyio.fail_after(10):
                await changed.seen.wait()

            # Interact on d2 limited to the shop: a tap on another app's node (the launcher's
            # "Notes" icon, in the dump it acts on) and a launch of the notes app are refused,
            # naming the package and the list; the shop's own launch and nodes are not.
            before = changed.count
            write_tree(inst, {id1: {"inspect": False}, id2: {"apps": [SHOP]}})

            # Polled with what cannot name its app (a tap at a corner of the status bar, harmless
            # before the list applies): refused while a list is set.
            async def raw_refused():
                err, r = await call(c, "android_tap", {"serial": d2, "x": 10, "y": 10})
                return err, r
            r = await until("d2's app list never applied", raw_refused)
            assert r["kind"] == "disabled" and "cannot name the app" in r["error"], r
            err, r = await call(c, "android_launch_app", {"serial": d2, "packageName": NOTES})
            assert err and r["kind"] == "disabled" and NOTES in r["error"] and SHOP in r["error"], r
            err, r = await call(c, "android_tap_element", {"serial": d2, "element": "Notes"})
            assert err and r["kind"] == "disabled" and LAUNCHER in r["error"], r["error"]
            err, r = await call(c, "android_launch_app", {"serial": d2, "packageName": SHOP})
            assert not err, r
            err, r = await call(c, "android_tap_element", {"serial": d2, "element": "Welcome back"})
            assert not err, r
            # d1 is not limited to any app.
            err, r = await call(c, "android_tap", {"serial": d1, "x": 10, "y": 10})
            assert not err, r
            with anyio.fail_after(10):
                while changed.count == before:
                    await anyio.sleep(0.1)

            # Inspect off everywhere (both devices and the default): the screenshot tool is no
            # longer listed; re-allowed, it is listed again, and the session is told both times.
            listed = {t.name for t in (await c.list_tools()).tools}
            assert "android_take_screenshot" in listed
            before = changed.count
            write_tree(inst, {"default": {"inspect": False}, id1: {"inspect": False}, id2: {"inspect": False}})
            with anyio.fail_after(10):
                while changed.count == before:
                    await anyio.sleep(0.1)
            listed = {t.name for t in (await c.list_tools(cache_mode="refresh")).tools}
            assert "android_take_screenshot" not in listed and "android_tap" in listed
            before = changed.count
            write_tree(inst, {id1: {"inspect": False}})
            with anyio.fail_after(10):
                while changed.count == before:
                    await anyio.sleep(0.1)
            listed = {t.name for t in (await c.list_tools(cache_mode="refresh")).tools}
            assert "android_take_screenshot" in listed

            err, st = await call(c, "spock_get_status")
            assert st["access"]["devices"] == {id1: {"inspect": False, "interact": True}}, st["access"]
    finally:
        inst.stop()

    # Kept as saved across a restart.
    saved = (inst.home / "config" / "config.toml").read_text()
    inst2 = start_instance(tmp_path, "--adb", adb.endpoint, home=inst.home)
    try:
        async with Client(inst2.relay_params(), mode="legacy") as c:
            await identities(c, d1, d2)
            err, r = await call(c, "android_take_screenshot", {"serial": d1})
            assert err and r["kind"] == "disabled", r
    finally:
        inst2.stop()

    # --allow-all lifts the tree for that process, says so, and writes nothing.
    inst3 = start_instance(tmp_path, "--adb", adb.endpoint, "--allow-all", home=inst.home)
    try:
        async with Client(inst3.relay_params(), mode="legacy") as c:
            await identities(c, d1, d2)
            err, r = await call(c, "android_take_screenshot", {"serial": d1})
            assert not err, r
            err, st = await call(c, "spock_get_status")
            assert st["access"]["allowAll"] is True and id1 in st["access"]["devices"], st["access"]
    finally:
        inst3.stop()
    assert (inst.home / "config" / "config.toml").read_text() == saved
