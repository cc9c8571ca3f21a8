"""Resource subscriptions and templates (issue 20). A second virtual device attaching sends
notifications/resources/updated to subscribers of android://devices: resources/subscribe in
the 2025 session era (HTTP and stdio), subscriptions/listen in 2026-07-28. Templates are
listed; a read calls the tool behind it through the one pipeline, so it is audited and an
access switch that turns the tool off refuses the read."""
import base64
import json
import time

import anyio
import mcp_types as types
import pytest
from conftest import ROOT, RealAdb, have_adb, start_instance
from protocol_common import SESSION_ERAS, connected, until

pytestmark = pytest.mark.anyio

DEMO = ROOT / "assets" / "demo" / "demo.toml"


@pytest.fixture
def one_then_two(tmp_path):
    """Two virtual devices behind a real adb server, the second not connected yet."""
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path, scenarios=[DEMO, DEMO])
    second = adb.serials[1]
    adb.adb("disconnect", second)
    deadline = time.monotonic() + 15
    while second in adb.adb("devices").stdout and time.monotonic() < deadline:
        time.sleep(0.1)
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    yield inst, adb, second
    inst.stop()
    adb.close()


def attach(adb, serial):
    adb.adb("connect", serial)


@pytest.mark.parametrize("transport,mode", SESSION_ERAS)
async def test_a_subscription_hears_a_second_device_arrive(one_then_two, transport, mode):
    inst, adb, second = one_then_two
    updated = []

    async def on_message(m):
        if isinstance(m, types.ResourceUpdatedNotification):
            updated.append(str(m.params.uri))

    async with connected(inst, transport, mode, message_handler=on_message) as c:
        assert c.server_capabilities.resources.subscribe is True
        await c.subscribe_resource("android://devices")
        before = json.loads((await c.read_resource("android://devices")).contents[0].text)
        assert len(before["devices"]) == 1, before
        await anyio.to_thread.run_sync(attach, adb, second)
        await until(lambda: "android://devices" in updated, what="resources/updated")
        after = json.loads((await c.read_resource("android://devices")).contents[0].text)
        assert len(after["devices"]) == 2, after
        # Selecting a device updates android://device/selected.
        await c.subscribe_resource("android://device/selected")
        res = await c.call_tool("android_select_device", {"serial": second})
        assert res.is_error is False, res.structured_content
        await until(lambda: "android://device/selected" in updated, what="the selection update")
        await c.unsubscribe_resource("android://devices")
        # Anything else cannot be subscribed to.
        with pytest.raises(Exception):
            await c.subscribe_resource("android://project/application-id")


async def test_2026_listen_hears_a_second_device_arrive(one_then_two):
    inst, adb, second = one_then_two
    async with connected(inst, "http", "auto") as c:
        assert c.protocol_version == "2026-07-28"
        async with c.listen(resource_subscriptions=["android://devices", "file:///etc/passwd"]) as sub:
            assert sub.honored.resource_subscriptions == ["android://devices"], sub.honored
            await anyio.to_thread.run_sync(attach, adb, second)
            with anyio.fail_after(15):
                async for event in sub:
                    if getattr(event, "uri", None) == "android://devices":
                        break


async def test_templates_are_listed_read_audited_and_switched(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        async with connected(inst, "stdio", "legacy") as c:
            listed = {t.uri_template: t for t in (await c.list_resource_templates()).resource_templates}
            assert set(listed) == {
                "android://device/{serial}/info", "android://device/{serial}/ui",
                "android://device/{serial}/screenshot", "android://device/{serial}/logcat{?lines,minLevel}",
            }
            serial = json.loads((await c.read_resource("android://devices")).contents[0].text)["devices"][0]["serial"]
            info = (await c.read_resource(f"android://device/{serial}/info")).contents[0]
            assert info.mime_type == "application/json" and json.loads(info.text)["serial"], info
            ui = json.loads((await c.read_resource(f"android://device/{serial}/ui")).contents[0].text)
            assert ui["revision"], ui
            shot = (await c.read_resource(f"android://device/{serial}/screenshot")).contents[0]
            assert shot.mime_type == "image/png" and base64.b64decode(shot.blob)[:4] == b"\x89PNG"
            log = json.loads((await c.read_resource(f"android://device/{serial}/logcat?lines=5&minLevel=E")).contents[0].text)
            assert "lines" in log and len(log["lines"]) <= 5
            with pytest.raises(Exception):
                await c.read_resource(f"android://device/{serial}/logcat?lines=lots")
        # Audited as the tools behind them.
        deadline = time.monotonic() + 10
        tools = set()
        while time.monotonic() < deadline and "android_take_screenshot" not in tools:
            audit = inst.home / "data" / "audit" / "audit.jsonl"
            if audit.exists():
                tools = set()
                for line in audit.read_text().splitlines():
                    try:
                        tools.add(json.loads(line)["tool"])
                    except (json.JSONDecodeError, KeyError):
                        continue
            time.sleep(0.2)
        assert {"android_get_device_info", "android_get_ui_tree", "android_take_screenshot", "android_get_logcat"} <= tools, tools
    finally:
        inst.stop()
    # A tool switched off refuses the read of its template.
    off = start_instance(tmp_path, "--demo", config='[access]\ndisabled = ["android_take_screenshot"]\n',
                         home=tmp_path / "home2")
    try:
        async with connected(off, "stdio", "legacy") as c:
            serial = json.loads((await c.read_resource("android://devices")).contents[0].text)["devices"][0]["serial"]
            with pytest.raises(Exception) as e:
                await c.read_resource(f"android://device/{serial}/screenshot")
            assert "android_take_screenshot" in str(e.value) or "disabled" in str(e.value).lower(), e.value
    finally:
        off.stop()
