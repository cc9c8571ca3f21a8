"""Every read-only tool, resources and prompts, through the real Python MCP SDK and Debian's
real adb server connected to the virtual device over TCP."""
import asyncio
import json
import pathlib

import pytest
from conftest import ROOT, RealAdb, call, have_adb, start_instance
from mcp import Client

pytestmark = pytest.mark.anyio


@pytest.fixture
def served(tmp_path, real_adb):
    inst = start_instance(tmp_path, "--adb", real_adb.endpoint(), config="[device]\ncommand_timeout_ms = 4000\n")
    yield inst, real_adb
    inst.stop()


async def test_every_readonly_tool_returns_correct_structured_content(served):
    inst, adb = served
    serial = adb.serials[0]
    async with Client(inst.relay_params(), mode="legacy") as c:
        listed = {t.name: t for t in (await c.list_tools()).tools}
        err, r = await call(c, "android_launch_app", {"packageName": "com.example.shop"})
        assert not err, r
        checks = {
            "android_list_devices": ({}, lambda r: r["devices"][0]["serial"] == serial and r["devices"][0]["sdk"] == 34),
            "android_get_device_info": ({}, lambda r: r["model"] == "Pixel 7" and r["sdk"] == 34 and r["screen"] == {"width": 1080, "height": 2400} and r["density"] == 420),
            "android_get_screen_info": ({}, lambda r: (r["width"], r["height"], r["density"]) == (1080, 2400, 420)),
            "android_list_packages": ({"thirdPartyOnly": True}, lambda r: {p["package"] for p in r["packages"]} >= {"com.example.shop", "com.example.notes"}),
            "android_get_package_info": ({"packageName": "com.example.shop"}, lambda r: r["versionName"] == "1.4.2" and "android.permission.CAMERA" in r["notGranted"] and r["debuggable"]),
            "android_get_current_activity": ({}, lambda r: r["package"] == "com.example.shop" and "MainActivity" in r["activity"]),
            "android_get_activity_stack": ({}, lambda r: r["tasks"][0]["activities"][0]["package"] == "com.example.shop"),
            "android_get_current_fragments": ({}, lambda r: "LoginFragment" in r["top"]["current"]),
            "android_get_logcat": ({"lines": 20}, lambda r: len(r["lines"]) <= 20 and all("tag" in l for l in r["lines"])),
            "android_get_processes": ({"filter": "com.example.shop"}, lambda r: r["count"] == 1 and r["processes"][0]["pid"] > 0),
            "android_get_battery_info": ({}, lambda r: 0 <= r["percent"] <= 100 and r["status"]),
            "android_get_network_info": ({}, lambda r: r["interfaces"] and r["errors"] == []),
            "android_get_debug_context": ({}, lambda r: r["activity"]["value"]["package"] == "com.example.shop" and r["ui"]["value"]["framework"] == "Jetpack Compose" and "value" in r["logcat"]),
            "android_take_screenshot": ({}, lambda r: r["screenWidth"] == 1080 and r["scaleToScreen"] > 1),
            "android_get_ui_tree": ({"interactiveOnly": True}, lambda r: r["framework"] == "Jetpack Compose" and r["testTagsExposed"] is True),
            "android_find_ui_element": ({"element": "Sign in"}, lambda r: r["count"] == 1 and r["matches"][0]["center"] == [540, 1075]),
            "android_wait_for_element": ({"element": "Welcome back", "timeoutMs": 2000}, lambda r: r["met"]),
            "android_accessibility_audit": ({}, lambda r: r["count"] >= 1 and all(f["framework"] == "Jetpack Compose" for f in r["findings"])),
            "android_assert_visible": ({"element": "Sign in"}, lambda r: r["passed"] is True),
            "android_assert_enabled": ({"selector": {"testTag": "sign_in"}}, lambda r: r["passed"] is True),
            "android_assert_text": ({"selector": {"testTag": "sign_in"}, "expectedText": "Nope"}, lambda r: r["passed"] is False and "found" in r),
            "spock_get_status": ({}, lambda r: r["devices"][0]["serial"] == serial),
            "spock_get_logs": ({"limit": 5}, lambda r: r["total"] >= 1),
            # This instance lists every set (conftest), so each is on and enabling changes nothing.
            "spock_list_toolsets": ({}, lambda r: all(s["on"] and s["tools"] > 0 for s in r["toolsets"])),
            "spock_enable_toolset": ({"toolset": "shell"}, lambda r: r["listChanged"] is False
                                     and r["tools"] == ["android_run_adb_command"]),
        }
        readonly = {n for n, t in listed.items() if t.annotations.read_only_hint}
        untested = readonly - set(checks) - {"android_list_app_functions"} - {n for n in readonly if n.startswith("android_batch_")}
        assert not untested, f"read-only tools without an end-to-end check: {untested}"
        for name, (args, ok) in checks.items():
            err, r = await call(c, name, args)
            assert not err, (name, r)
            assert ok(r), (name, json.dumps(r)[:800])


async def test_screenshot_is_image_content_with_scale(served):
    inst, _ = served
    async with Client(inst.relay_params(), mode="legacy") as c:
        res = await c.call_tool("android_take_screenshot", {"maxSize": 800, "format": "png"})
        imgs = [b for b in res.content if b.type == "image"]
        assert len(imgs) == 1 and imgs[0].mime_type == "image/png"
        import base64

        png = base64.b64decode(imgs[0].data)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        sc = res.structured_content
        assert sc["height"] == 800 and sc["width"] == 360
        assert abs(sc["scaleToScreen"] - 3.0) < 1e-9


def jpeg_size(j: bytes):
    """Width and height from a baseline JPEG's SOF0 frame header."""
    i = 2
    while i + 9 < len(j) and j[i] == 0xFF:
        marker, length = j[i + 1], int.from_bytes(j[i + 2:i + 4], "big")
        if marker == 0xC0:
            return int.from_bytes(j[i + 7:i + 9], "big"), int.from_bytes(j[i + 5:i + 7], "big")
        i += 2 + length
    return None


async def test_screenshot_reads_a_raw_frame_and_converts_it_on_the_host(served):
    """The device is asked for raw `screencap` (no PNG encoding on the device), through the
    real adb server; the host makes the JPEG, at the right size."""
    import base64

    inst, adb = served
    sim = adb.sim_serials()[0]
    async with Client(inst.relay_params(), mode="legacy") as c:
        await call(c, "android_launch_app", {"packageName": "com.example.shop"})
        adb.fault(sim, stats=True, reset=True)
        res = await c.call_tool("android_take_screenshot", {"maxSize": 1024, "format": "jpeg"})
        assert not res.is_error, res
        cmds = json.loads(adb.fault(sim, stats=True))["stats"][sim]["commands"]
        assert cmds.get("screencap (raw)", {}).get("count") == 1, cmds
        assert "screencap -p" not in cmds, cmds
        img = next(b for b in res.content if b.type == "image")
        jpeg = base64.b64decode(img.data)
        assert img.mime_type == "image/jpeg" and jpeg[:2] == b"\xff\xd8" and jpeg[-2:] == b"\xff\xd9"
        sc = res.structured_content
        assert (sc["screenWidth"], sc["screenHeight"]) == (1080, 2400)
        assert (sc["width"], sc["height"]) == (461, 1024) == jpeg_size(jpeg), (sc, jpeg_size(jpeg))


async def test_a_raw_frame_of_a_rotated_screen_has_the_rotated_size(served):
    import base64

    inst, adb = served
    sim = adb.sim_serials()[0]
    adb.adb("-s", adb.serials[0], "shell", "wm user-rotation lock 1")
    async with Client(inst.relay_params(), mode="legacy") as c:
        adb.fault(sim, stats=True, reset=True)
        res = await c.call_tool("android_take_screenshot", {"maxSize": 1024, "format": "jpeg"})
        assert not res.is_error, res
        cmds = json.loads(adb.fault(sim, stats=True))["stats"][sim]["commands"]
        assert cmds.get("screencap (raw)", {}).get("count") == 1, cmds
        sc = res.structured_content
        jpeg = base64.b64decode(next(b for b in res.content if b.type == "image").data)
        assert (sc["screenWidth"], sc["screenHeight"]) == (2400, 1080), sc
        assert (sc["width"], sc["height"]) == (1024, 461) == jpeg_size(jpeg), sc


async def test_debug_context_survives_a_failing_screenshot(served):
    inst, adb = served
    adb.fault(adb.sim_serials()[0], fault="hang", command="screencap")
    async with Client(inst.relay_params(), mode="legacy") as c:
        err, r = await call(c, "android_get_debug_context", {"include": ["activity", "ui", "logcat", "screenshot"]})
        assert not err, r
        assert "error" in r["screenshot"] and "timed out" in r["screenshot"]["error"]
        assert r["activity"]["value"]["package"]
        assert r["ui"]["value"]["framework"]
        assert "lines" in r["logcat"]["value"]


async def test_resources_are_fresh_and_stamped(served):
    inst, adb = served
    async with Client(inst.relay_params(), mode="legacy") as c:
        uris = {str(r.uri) for r in (await c.list_resources()).resources}
        assert uris == {"android://devices", "android://device/selected", "android://project/application-id"}
        first = json.loads((await c.read_resource("android://devices")).contents[0].text)
        assert first["devices"][0]["serial"] == adb.serials[0]
        await asyncio.sleep(0.01)
        second = json.loads((await c.read_resource("android://devices")).contents[0].text)
        assert second["readAt"] > first["readAt"]
        sel = json.loads((await c.read_resource("android://device/selected")).contents[0].text)
        # The effective device by its full name, `serial@host:port`.
        assert sel["effective"] == f"{adb.serials[0]}@{adb.endpoint()}" and sel["readAt"]
        app = json.loads((await c.read_resource("android://project/application-id")).contents[0].text)
        assert "readAt" in app


async def test_prompts_for_the_three_workflows(served):
    inst, _ = served
    async with Client(inst.relay_params(), mode="legacy") as c:
        names = {p.name for p in (await c.list_prompts()).prompts}
        assert names == {"debug_crash", "test_deep_link", "investigate_permission"}
        p = await c.get_prompt("test_deep_link", {"uri": "shop://product/42"})
        text = p.messages[0].content.text
        assert "android_open_deep_link" in text and "shop://product/42" in text


async def test_two_devices_refuse_without_serial_and_name_both(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    demo = ROOT / "assets" / "demo" / "demo.toml"
    adb = RealAdb(tmp_path, scenarios=[demo, demo])
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    try:
        a, b = adb.serials
        async with Client(inst.relay_params(), mode="legacy") as c:
            err, r = await call(c, "android_get_device_info", {})
            assert err and a in r["error"] and b in r["error"]
            assert set(r["candidates"]) == {a, b}
            err, r = await call(c, "android_get_device_info", {"serial": b})
            assert not err and r["serial"] == f"{b}@{adb.endpoint()}", r  # results carry the full name
            err, r = await call(c, "android_select_device", {"serial": a})
            assert not err
            err, r = await call(c, "android_get_current_activity", {})
            assert not err
            err, r = await call(c, "android_list_devices", {})
            assert [d["selected"] for d in sorted(r["devices"], key=lambda d: d["serial"] != a)] == [True, False]
    finally:
        inst.stop()
        adb.close()


async def test_tool_errors_not_hangs_and_recovery(served):
    inst, adb = served
    sim = adb.sim_serials()[0]
    async with Client(inst.relay_params(), mode="legacy") as c:
        # a command that hangs → a timeout error within the configured bound
        adb.fault(sim, fault="hang", command="dumpsys")
        err, r = await call(c, "android_get_battery_info", {})
        assert err and r["kind"] == "timeout", r
        adb.fault(sim, fault="clear")
        # the device drops mid-call
        adb.fault(sim, fault="drop", bytes=64)
        err, r = await call(c, "android_get_ui_tree", {})
        assert err, r
        adb.fault(sim, fault="clear")
        # the adb server is killed → a clear error (spock-tui restarts a local server on the same
        # port, as adb clients do, which then has no device until it is reconnected). Whether the
        # device tracker saw the server go before this call or not, the error names the cause:
        # the server, or that no device is attached (to it) any more.
        adb.adb("kill-server")
        err, r = await call(c, "android_get_battery_info", {})
        no_device = "no device" in r.get("error", "") and "attached" in r.get("error", "")
        assert err and ("adb server" in r["error"] or no_device), r
        # adb comes back → the next call succeeds
        adb.adb("start-server")
        adb.adb("connect", adb.serials[0])
        adb.wait_online()
        err, r = await call(c, "android_get_battery_info", {})
        assert not err, r
    inst.stop()  # flushes the audit trail
    audit = (inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines()
    outcomes = [json.loads(l)["outcome"] for l in audit]
    assert "timeout" in outcomes and "error" in outcomes and outcomes[-1] == "ok"


def test_doctor_reports_adb_devices_and_files(served):
    inst, adb = served
    r = inst.run("doctor", "--adb", adb.endpoint())
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"device {adb.serials[0]} (Pixel_7)" in r.stdout
    assert "token:" in r.stdout and "600 in a 700 directory" in r.stdout
    assert f"instance pid {inst.proc.pid} running" in r.stdout
    adb.adb("kill-server")
    r = inst.run("doctor", "--adb", adb.endpoint())
    assert r.returncode != 0 and "unreachable" in r.stdout
