"""Issue 15 item 1, as the person sees it: the confirmation modal names the device the call was
resolved (and pinned) to, with its model; the full `serial@host:port` where several adb servers
are combined (the same serial on two of them here), the serial where there is one. Several
devices and none named: refused before the modal. spock-tui in tmux, a real MCP client over
the stdio relay, two virtual-device front doors (no adb needed)."""
import asyncio
import shutil

import pytest
from conftest import ROOT
from mcp import Client
from test_lab import Sim
from tmux_harness import relay, start_tui, text_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

DEMO = ROOT / "assets" / "demo" / "demo.toml"
APP = "com.example.notes"


@pytest.fixture
def two_hosts(tmp_path):
    sims = [Sim(tmp_path, n, "--adb-server", "127.0.0.1:0", "--device", str(DEMO)) for n in ("one", "two")]
    t = None
    try:
        doors = [s.info["adb_server"] for s in sims]
        t = start_tui(tmp_path, "--adb", doors[0], "--adb", doors[1])
        yield t, doors
    finally:
        if t:
            t.kill()
        for s in sims:
            s.stop()


async def test_modal_names_the_pinned_device_with_its_server_and_model(two_hosts):
    tui, doors = two_hosts
    await tui.wait_for("[running]")
    async with Client(relay(tui), mode="legacy") as c:
        listed = (await c.call_tool("android_list_devices", {})).structured_content
        ids = sorted(d["id"] for d in listed["devices"])
        assert len(ids) == 2, listed
        # Both front doors serve a phone with the same serial.
        serial = ids[0].split("@")[0]
        assert all(i.startswith(serial + "@") for i in ids), ids
        second = f"{serial}@{doors[1]}"
        assert second in ids

        # Several devices, none named or selected: refused before anyone is asked.
        r = await asyncio.wait_for(c.call_tool("android_uninstall_app", {"packageName": APP}), 15)
        assert r.is_error is True
        assert "none is selected" in text_of(r), text_of(r)
        assert "Approve a destructive call" not in tui.screen()

        # Named with its server: the modal says exactly which phone, and its model.
        call = asyncio.create_task(c.call_tool("android_uninstall_app", {"serial": second, "packageName": APP}))
        screen = await tui.wait_for("Approve a destructive call", "android_uninstall_app")
        device_line = next(line for line in screen.splitlines() if "│Device " in line)
        assert second in device_line, screen
        assert "Pixel 7" in device_line, screen
        assert "the selected device" not in screen
        tui.keys("n")
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is True and "denied" in text_of(r)


async def test_modal_names_the_only_device_by_its_serial(tmp_path):
    tui = start_tui(tmp_path, "--demo")
    try:
        await tui.wait_for("[running]")
        async with Client(relay(tui), mode="legacy") as c:
            listed = (await c.call_tool("android_list_devices", {})).structured_content
            [dev] = listed["devices"]
            call = asyncio.create_task(c.call_tool("android_clear_app_data", {"packageName": APP}))
            screen = await tui.wait_for("Approve a destructive call", "android_clear_app_data")
            device_line = next(line for line in screen.splitlines() if "│Device " in line)
            assert f"{dev['serial']} (Pixel 7)" in device_line, screen
            assert "@" not in device_line, "one server: the bare serial"
            tui.keys("n")
            r = await asyncio.wait_for(call, 15)
            assert r.is_error is True
    finally:
        tui.kill()
