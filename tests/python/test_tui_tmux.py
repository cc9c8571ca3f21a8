"""The control centre as a person meets it: spock-tui in a detached tmux session, a real MCP
client over the stdio relay, and keys sent with `tmux send-keys`. Checks the confirmation
modal (approve, deny, timeout), Activity's decisions, and spock_navigate."""
import asyncio
import json
import os
import shlex
import shutil
import subprocess
import time
import uuid

import pytest
from tmux_harness import Tui, relay, start_tui, text_of  # noqa: F401

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]


@pytest.fixture
def tui(tmp_path):
    t = start_tui(tmp_path, config='[access]\nallowed_groups = ["settings"]\n')
    yield t
    t.kill()


async def test_confirmation_modal_approve_deny_timeout_and_navigate(tui):
    from mcp import Client

    await tui.wait_for("[running]", "HTTP (127.0.0.1:", "stdio (")
    async with Client(relay(tui), mode="legacy") as c:
        # 1. approved with y: the call runs, and lowers the timeout to 3 s for step 3.
        call = asyncio.create_task(c.call_tool("spock_update_settings", {"confirmTimeoutSecs": 3}))
        screen = await tui.wait_for("Approve a destructive call", "spock_update_settings", '"confirmTimeoutSecs": 3')
        assert "Denied automatically in" in screen
        assert "Deny (n)" in screen and "Approve (y)" in screen
        await tui.approve()
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is False, text_of(r)
        assert "confirmTimeoutSecs" in r.structured_content["applied"]

        # 2. denied with n.
        call = asyncio.create_task(c.call_tool("spock_update_settings", {"historySize": 500}))
        await tui.wait_for("Approve a destructive call", '"historySize": 500')
        tui.keys("n")
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is True
        assert "denied" in text_of(r)

        # 3. left alone: denied at the (new) 3 s timeout, and the modal goes away.
        started = time.monotonic()
        call = asyncio.create_task(c.call_tool("spock_update_settings", {"historySize": 600}))
        await tui.wait_for("Approve a destructive call", '"historySize": 600')
        r = await asyncio.wait_for(call, 15)
        waited = time.monotonic() - started
        assert r.is_error is True
        assert "timed out" in text_of(r)
        assert 2.0 <= waited < 10, waited
        # The abandoned request leaves the screen by itself.
        deadline = time.monotonic() + 5
        while "Approve a destructive call" in tui.screen() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert "Approve a destructive call" not in tui.screen()
        # It says it timed out for a moment (keys held back), then goes too.
        await tui.wait_for("Request timed out")
        await tui.wait_gone("Request timed out")

        # 4. navigate: applied, the screen changes, and status reports it.
        r = await c.call_tool("spock_navigate", {"destination": "activity"})
        assert r.is_error is False and r.structured_content["applied"] is True, text_of(r)
        screen = await tui.wait_for("Activity —", "denied (timeout)")
        assert "ok (key)" in screen, screen
        assert "denied (key)" in screen, screen
        assert "denied (timeout)" in screen, screen
        st = await c.call_tool("spock_get_status", {})
        assert st.structured_content["screen"] == "activity"

        # 5. navigate with something to select that does not exist: refused with a reason.
        r = await c.call_tool("spock_navigate", {"destination": "tools", "select": "no_such_tool"})
        assert r.structured_content["applied"] is False
        assert "no_such_tool" in r.structured_content["reason"]
        r = await c.call_tool("spock_navigate", {"destination": "tools", "select": "spock_get_logs"})
        assert r.structured_content["applied"] is True
        n = len((await c.list_tools()).tools)  # visible / total: no filter is active
        await tui.wait_for(f"Tools {n}/{n}", "Read spock-tui's own log")

        # The person's client is now known by name on Status. (Keys count again once the
        # person paused after an agent's switch: 1.5 s, counted before the answer came back.)
        await asyncio.sleep(2.0)
        tui.keys("1")
        screen = await tui.wait_for("via stdio")
        assert "No client has identified itself yet" not in screen

    # q quits: the pane's process exits and the terminal is handed back.
    tui.keys("q")
    deadline = time.monotonic() + 10
    while not tui.pane_dead() and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert tui.pane_dead()


async def test_no_client_sentence_and_help_overlay(tui):
    screen = await tui.wait_for("[running]")
    assert "No client has identified itself yet." in screen
    tui.keys("?")
    # A frame reaches tmux in pieces: wait for the overlay's lines, not only its title.
    screen = await tui.wait_for("Keys (generated from the keymap)", "copy client configuration", "quit (stops the server)")
    # The current screen's keys come first, then the global ones.
    assert screen.index("copy client configuration") < screen.index("quit (stops the server)")
    tui.keys("Escape")
    await tui.wait_for("Clients (as they identified themselves)")
