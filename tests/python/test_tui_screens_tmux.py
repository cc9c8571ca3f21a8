"""The control centre's screens with real keys in a real terminal (tmux): Status's client
configuration at 80×24 (scrolls, says there is more, keys in sight) and after `token rotate`;
Settings' Enable all (asks a second key) and what a save writes; History's one time for a call,
live and after a restart; and, on the demo device, a screenshot's JPEG dimensions in the request
details, and a failed batch run started from the Batch screen (its step and error, and the
control centre as the client of its calls), and a device's Inspect switch and apps list set
from the keyboard at 80×24 biting the agent's next calls."""
import asyncio
import json
import os
import re
import shutil
import subprocess
import time
import tomllib

import pytest
from conftest import EXE
from tmux_harness import relay, start_tui, text_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

SETTINGS = '[access]\nallowed_groups = ["settings"]\n'


def rows(screen: str) -> str:
    """The screen's rows without the frame, run together: a wrapped token reads whole."""
    return "".join(line.strip().strip("│").strip() for line in screen.splitlines())


async def quit_and_wait(tui):
    tui.keys("q")
    deadline = time.monotonic() + 10
    while not tui.pane_dead() and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert tui.pane_dead()


async def test_status_configuration_scrolls_at_80x24(tmp_path):
    tui = start_tui(tmp_path, width=80, height=24)
    try:
        await tui.wait_for("[running]")
        tui.keys("t")
        screen = await tui.wait_for("HTTP configuration", "more (j/↓)")
        assert "t stdio/HTTP · ←/→ client · y copy" in screen, screen
        token = (tui.home / "config" / "token").read_text().strip()
        seen = False
        for _ in range(20):
            tui.keys("j")
            await asyncio.sleep(0.05)
            seen |= token in rows(tui.screen())
        assert seen, "the token never showed whole"
        screen = await tui.wait_for("↑ k/↑")
        assert "more (j/↓)" not in screen and "y copy" in screen, screen
    finally:
        tui.kill()


async def test_a_rotated_token_shows_and_copies_at_once(tmp_path):
    tui = start_tui(tmp_path)
    try:
        # The pane's program may set tmux's buffer (OSC 52): what `y` copies can be read back.
        tui.tmux("set-option", "-g", "set-clipboard", "on")
        await tui.wait_for("[running]")
        tui.keys("t")
        old = (tui.home / "config" / "token").read_text().strip()
        await tui.wait_for(f"Bearer {old}")
        env = {**os.environ, "SPOCK_TUI_HOME": str(tui.home)}
        r = subprocess.run([EXE, "token", "rotate"], env=env, capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        new = (tui.home / "config" / "token").read_text().strip()
        assert new != old
        screen = await tui.wait_for(f"Bearer {new}", "token was rotated", timeout=10)
        assert old not in screen
        tui.keys("y")
        await tui.wait_for("sent HTTP configuration")
        buffer = tui.tmux("show-buffer", check=False).stdout
        assert f"Bearer {new}" in buffer and old not in buffer, buffer
    finally:
        tui.kill()


async def test_enable_all_asks_a_second_key_for_the_host_groups(tmp_path):
    tui = start_tui(tmp_path, config=SETTINGS)
    cfg = tui.home / "config" / "config.toml"
    try:
        await tui.wait_for("[running]")
        tui.keys("5")
        await tui.wait_for("Tool access", "Enable all")
        # a would allow adb_server too: a second key is needed, and n changes nothing.
        tui.keys("a")
        await tui.wait_for("Are you sure?", "adb_server", "y/n")
        tui.keys("n")
        await tui.wait_for("nothing changed")
        assert tomllib.loads(cfg.read_text()) == {"access": {"allowed_groups": ["settings"]}}
        # y goes ahead: every tool and group on.
        tui.keys("a")
        await tui.wait_for("Are you sure?")
        tui.keys("y")
        await tui.wait_for("saved every tool and host group on")
        saved = tomllib.loads(cfg.read_text())
        assert sorted(saved["access"]["allowed_groups"]) == ["adb_server", "settings"]
    finally:
        tui.kill()


async def test_a_save_says_so_and_writes_only_what_changed(tmp_path):
    tui = start_tui(tmp_path, config=SETTINGS)
    cfg = tui.home / "config" / "config.toml"
    try:
        await tui.wait_for("[running]")
        tui.keys("5")
        await tui.wait_for("Tool access", "Enable all")
        # Switch the last tool off: the footer says it was saved, the file holds only that.
        tui.keys("G")
        tui.keys("Space")
        screen = await tui.wait_for("saved ", " off to ")
        tool = re.search(r"saved (\w+) off to", screen).group(1)
        assert tomllib.loads(cfg.read_text()) == {
            "access": {"allowed_groups": ["settings"], "disabled": [tool]},
        }
        # A number too: the file gains that key and nothing else.
        tui.keys("g")  # Enable all; then Read-only only, the five host groups, History size
        for _ in range(7):
            tui.keys("Down")
        await tui.wait_for("History size")
        tui.keys("Enter")
        tui.keys("C-u")
        tui.type("500")
        tui.keys("Enter")
        await tui.wait_for("saved History size (calls kept) = 500")
        assert tomllib.loads(cfg.read_text()) == {
            "access": {"allowed_groups": ["settings"], "disabled": [tool]},
            "history": {"size": 500},
        }
    finally:
        tui.kill()


def time_of(screen: str, tool: str) -> str:
    m = re.search(rf"(\d\d:\d\d:\d\d)\S*\s+\S+\s+{tool}\b", screen)
    assert m, screen
    return m.group(1)


async def test_history_shows_when_a_call_started_live_and_after_a_restart(tmp_path):
    from mcp import Client

    tui = start_tui(tmp_path, config=SETTINGS)
    try:
        await tui.wait_for("[running]")
        async with Client(relay(tui), mode="legacy") as c:
            call = asyncio.create_task(c.call_tool("spock_update_settings", {"historySize": 500}))
            await tui.wait_for("Approve a destructive call")
            # Answered a few seconds later: its start and its end are different seconds.
            await asyncio.sleep(2.5)
            tui.keys("y")
            r = await asyncio.wait_for(call, 15)
            assert r.is_error is False, text_of(r)
        tui.keys("4")
        live = time_of(await tui.wait_for("History —", "ok (key)"), "spock_update_settings")
        await quit_and_wait(tui)
    finally:
        tui.kill()
    tui = start_tui(tmp_path)
    try:
        await tui.wait_for("[running]")
        tui.keys("4")
        after = time_of(await tui.wait_for("History —", "spock_update_settings"), "spock_update_settings")
        assert after == live
    finally:
        tui.kill()


async def test_a_demo_screenshot_shows_its_jpeg_dimensions(tmp_path):
    from mcp import Client

    tui = start_tui(tmp_path, "--demo", config=SETTINGS)
    try:
        await tui.wait_for("[running]", "demo")
        async with Client(relay(tui), mode="legacy") as c:
            # The default screenshot is a JPEG: its details say how big it is.
            r = await c.call_tool("android_take_screenshot", {})
            assert r.is_error is False, text_of(r)
        tui.keys("3")
        await tui.wait_for("Activity —", "android_take_screenshot")
        tui.keys("Enter")
        screen = await tui.wait_for("Images (1)")
        assert re.search(r"image/jpeg [\d.]+ [KM]B \d+×\d+", screen), screen
        assert "undecodable" not in screen, screen
    finally:
        tui.kill()


async def test_a_failed_batch_run_shows_its_step_and_the_control_centre_as_client(tmp_path):
    from mcp import Client

    tui = start_tui(tmp_path, "--demo", config=SETTINGS)
    try:
        await tui.wait_for("[running]", "demo")
        async with Client(relay(tui), mode="legacy") as c:
            steps = [
                {"tool": "android_launch_app", "arguments": {"packageName": "com.example.missing"}},
                {"tool": "android_take_screenshot", "arguments": {}},
            ]
            r = await c.call_tool("android_batch_save", {"id": "broken", "name": "broken", "steps": steps})
            assert r.is_error is False, text_of(r)
        # Run from the Batch screen: the run fails at its first step, and says where and why.
        tui.keys("6")
        await tui.wait_for("Tasks (1)", "broken")
        tui.keys("r")
        screen = await tui.wait_for("failed", "↳ step 1 (android_launch_app)", timeout=30)
        assert "com.example.missing" in screen, screen
        # Its call is the control centre's, not "unknown".
        tui.keys("4")
        screen = await tui.wait_for("History —", "android_launch_app")
        row = next(line for line in screen.splitlines() if "android_launch_app" in line)
        assert "control centre" in row and "unknown" not in row, screen
        # And so the audit trail says, once the control centre has closed it.
        await quit_and_wait(tui)
    finally:
        tui.kill()
    audit = [json.loads(line) for line in (tui.home / "data" / "audit" / "audit.jsonl").read_text().splitlines() if line.strip()]
    launched = [a for a in audit if a["tool"] == "android_launch_app"]
    assert launched and launched[0]["client"].startswith("control centre/"), launched


async def test_a_devices_switches_and_apps_are_set_from_settings_at_80x24(tmp_path):
    """The device tree from the keyboard at 80×24, on the demo device through a real client:
    the device's row opens with Enter, Space turns its Inspect off (saved, and the agent's next
    screenshot is refused naming the branch), and its apps list is filled with Tab from the
    apps seen on its screens (saved; a launch of another app is refused)."""
    from mcp import Client

    tui = start_tui(tmp_path, "--demo", config=SETTINGS, width=80, height=24)
    cfg = tui.home / "config" / "config.toml"
    try:
        await tui.wait_for("[running]", "demo")
        async with Client(relay(tui), mode="legacy") as c:
            r = await c.call_tool("android_list_devices", {})
            identity = r.structured_content["devices"][0]["identity"]
            serial = r.structured_content["devices"][0]["serial"]
            r = await c.call_tool("android_launch_app", {"packageName": "com.example.notes"})
            assert r.is_error is False, text_of(r)
            r = await c.call_tool("android_get_ui_tree", {})
            assert r.is_error is False, text_of(r)
            tui.keys("5")
            await tui.wait_for("Tool access")
            # `/` narrows the tree to the device (and the tools to none): G is its row.
            tui.keys("/")
            tui.type(serial)
            tui.keys("Enter")
            await tui.wait_for("filter")
            tui.keys("G")
            tui.keys("Enter")
            await tui.wait_for("▾ ", "Interact with: any app")
            tui.keys("Down")
            tui.keys("Space")
            await tui.wait_for("saved Inspect off on")
            saved = tomllib.loads(cfg.read_text())
            assert saved["access"]["devices"][identity]["inspect"] is False, saved

            async def refused():
                for _ in range(50):
                    r = await c.call_tool("android_take_screenshot", {})
                    if r.is_error:
                        return r
                    await asyncio.sleep(0.1)
                raise AssertionError("the screenshot was never refused")
            r = await refused()
            assert "Inspect is off" in text_of(r) and "Settings" in text_of(r), text_of(r)

            # The apps row offers what was seen: Tab fills the list in.
            tui.keys("Down")
            tui.keys("Down")
            tui.keys("Enter")
            await tui.wait_for("Tab adds ")
            tui.keys("Tab")
            tui.keys("Enter")
            screen = await tui.wait_for("saved Interact on", "limited to")
            apps = tomllib.loads(cfg.read_text())["access"]["devices"][identity]["apps"]
            assert len(apps) == 1 and apps[0] in rows(screen), (apps, screen)
            other = "com.example.shop" if apps[0] != "com.example.shop" else "com.example.notes"
            r = await c.call_tool("android_launch_app", {"packageName": other})
            assert r.is_error and other in text_of(r) and apps[0] in text_of(r), text_of(r)
    finally:
        tui.kill()
