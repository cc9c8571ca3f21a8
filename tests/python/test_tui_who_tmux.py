"""Issue 31, item 8, on the person's screen: `spock-tui --demo` in tmux and an MCP client that
calls itself "control centre" through a relay that claims `ssh from 10.9.8.7`. The modal says
what the server verified (an MCP client over stdio, the relay's pid and uid, its parent) apart
from what the client claims, marks the claims, and warns that the name reads like a control
centre's; it never reads as the person's own act."""
import asyncio
import os
import shutil

import pytest
from tmux_harness import relay, start_tui, text_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

MODAL = "Approve a destructive call"


async def test_the_modal_shows_the_verified_part_apart_from_the_claims(tmp_path):
    from mcp import Client
    from mcp_types import Implementation

    tui = start_tui(tmp_path, "--demo", width=140, height=45)
    try:
        await tui.wait_for("[running]", "demo")
        params = relay(tui)
        params = params.model_copy(update={"env": {**(params.env or {}), "SSH_CONNECTION": "10.9.8.7 2222 10.0.0.1 22"}})
        info = Implementation(name="control centre", version="0.1.0")
        async with Client(params, mode="legacy", client_info=info) as c:
            call = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
            screen = await tui.wait_for(MODAL, "Asked by")
            flat = " ".join(screen.replace("│", " ").split())
            assert "an MCP client over stdio" in flat and "(verified)" in flat, screen
            assert f"uid {os.getuid()}" in flat and f"its parent {os.getpid()}" in flat, screen
            assert 'claims "control centre 0.1.0"; claims ssh from 10.9.8.7:2222 (not verified)' in flat, screen
            assert "reads like a control centre's" in flat, screen
            assert "the person at" not in flat, screen
            await tui.wait_armed()
            tui.keys("n")
            r = await asyncio.wait_for(call, 15)
            assert r.is_error is True and "denied" in text_of(r), text_of(r)
    finally:
        tui.kill()
