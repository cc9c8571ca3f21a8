"""Issue 15, "the approval is bound to what the person saw", as an attacker driving the agent
side would try it: `spock-tui --demo` in tmux, real MCP clients, real keys.

- a command whose tail is pushed out of sight (padding, or a long line) cannot be approved
  until the person has scrolled to its end;
- a `y` sent the moment the modal appears (meant for something else) is ignored;
- a request withdrawn by its client is not replaced under the person's finger: a double `y`
  does not approve the queued call nobody saw;
- with NO_COLOR=1 the focused button is still visibly marked."""
import asyncio
import json
import re
import select
import shutil
import subprocess
import time

import pytest
from conftest import EXE
from tmux_harness import relay, start_tui, text_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

MODAL = "Approve a destructive call"


@pytest.fixture
def tui(tmp_path):
    t = start_tui(tmp_path, "--demo")
    yield t
    t.kill()


async def test_a_tail_out_of_sight_cannot_be_approved_until_scrolled_to(tui):
    from mcp import Client

    await tui.wait_for("[running]", "demo")
    async with Client(relay(tui), mode="legacy") as c:
        # The reported attack: 2,100 spaces between "echo hello" and the real command. The
        # spaces are counted, so the tail is on the first screen.
        padded = "shell echo hello" + " " * 2100 + "; pm uninstall com.example.notes"
        call = asyncio.create_task(c.call_tool("android_run_adb_command", {"command": padded, "reason": "say hello"}))
        screen = await tui.wait_for(MODAL, "; pm uninstall com.example.notes")
        assert "echo hello␠×2100; pm uninstall" in screen, screen
        await tui.wait_armed()
        tui.keys("n")
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is True and "denied" in text_of(r), text_of(r)

        # A tail past the bottom of the box: y and Tab-Enter do nothing until it was shown.
        long = "shell echo " + "A" * 5000 + "; pm uninstall com.example.notes"
        call = asyncio.create_task(c.call_tool("android_run_adb_command", {"command": long, "reason": "print a long line"}))
        screen = await tui.wait_for(MODAL, "scroll to the end to approve: ↓ ")
        assert "pm uninstall" not in screen, screen
        deadline = time.monotonic() + 10
        while "y available in" in tui.screen() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        tui.keys("y")
        tui.keys("Tab")
        tui.keys("Enter")
        await asyncio.sleep(1.0)
        screen = tui.screen()
        assert MODAL in screen and "scroll to the end to approve" in screen, screen
        assert not call.done(), "approved without the tail ever on screen"
        # Jumping to the end shows the tail but skips the lines between: still not approvable.
        tui.keys("End")
        screen = await tui.wait_for(MODAL, "; pm uninstall com.example.notes")
        screen = await tui.wait_for(MODAL, "scroll over every line to approve:")
        tui.keys("y")
        await asyncio.sleep(1.0)
        assert not call.done(), "approved with lines never on screen"
        # Back up a page at a time: every line has been shown, and y counts.
        for _ in range(200):
            if "to approve:" not in tui.screen():
                break
            tui.keys("PageUp")
            await asyncio.sleep(0.1)
        await tui.wait_gone("to approve:")
        tui.keys("y")
        r = await asyncio.wait_for(call, 15)
        assert "denied" not in text_of(r), text_of(r)


async def test_a_y_the_moment_the_modal_appears_is_ignored(tui):
    from mcp import Client

    await tui.wait_for("[running]", "demo")
    async with Client(relay(tui), mode="legacy") as c:
        call = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
        await tui.wait_for(MODAL, "com.example.notes")
        # Meant for "copy config" on Status, arriving as the modal opens.
        tui.keys("y")
        await asyncio.sleep(1.0)
        screen = tui.screen()
        assert MODAL in screen, screen
        assert not call.done(), "the stray y approved the call"
        # The same key, pressed by someone who has seen it, approves.
        await tui.approve()
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is False, text_of(r)


def raw_relay(tui):
    """A stdio client speaking JSON-RPC by hand, so it can withdraw a request by its id."""
    p = subprocess.Popen(
        [EXE, "relay", str(tui.home / "run" / "endpoint.json")],
        env={**__import__("os").environ, "SPOCK_TUI_HOME": str(tui.home)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )

    def send(m):
        p.stdin.write(json.dumps(m).encode() + b"\n")
        p.stdin.flush()

    def read(timeout):
        r, _, _ = select.select([p.stdout], [], [], timeout)
        return json.loads(p.stdout.readline()) if r else None

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "swapper", "version": "1"}}})
    assert read(10)["id"] == 1
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return p, send, read


async def test_a_withdrawn_request_is_not_replaced_under_the_persons_finger(tui):
    await tui.wait_for("[running]", "demo")
    p, send, read = raw_relay(tui)
    try:
        uninstall = lambda i, pkg: {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "android_uninstall_app", "arguments": {"packageName": pkg}}}  # noqa: E731
        send(uninstall(7, "com.example.notes"))
        await tui.wait_for(MODAL, "com.example.notes")
        send(uninstall(8, "com.example.shop"))
        await tui.wait_for(MODAL, "1 of 2 waiting")
        await tui.wait_armed()
        # The agent withdraws the request on screen just as the person answers it: a double y.
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "swap"}})
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            screen = tui.screen()
            if "withdrawn by the client" in screen or "com.example.shop" in screen:
                break
            await asyncio.sleep(0.02)
        tui.keys("y")
        tui.keys("y")
        await asyncio.sleep(1.0)
        assert read(0.1) is None, "a double y approved the queued call nobody saw"
        assert "withdrawn by the client" in screen, screen
        # The queued request comes next, on its own, and waits for a key.
        await tui.wait_for(MODAL, "com.example.shop", timeout=10)
        await asyncio.sleep(1.0)
        assert read(0.1) is None, "the queued call was answered by keys meant for the withdrawn one"
        tui.keys("n")
        msg = read(15)
        assert msg is not None and msg["id"] == 8, msg
        assert msg["result"]["isError"] is True and "denied" in json.dumps(msg), msg
    finally:
        p.stdin.close()
        p.wait(timeout=5)


def colours(row: str) -> list:
    """The colour parameters of the SGR sequences in `row` (38/48 extended, 30-37, 40-47,
    90-97, 100-107); 39 and 49 (default colour) are not colours."""
    found = []
    for params in re.findall(r"\x1b\[([0-9;]*)m", row):
        ps = [int(p) for p in params.split(";") if p]
        if any(p in (38, 48) or 30 <= p <= 37 or 40 <= p <= 47 or 90 <= p <= 97 or 100 <= p <= 107 for p in ps):
            found.append(params)
    return found


async def test_focus_is_visible_without_colour(tmp_path):
    t = start_tui(tmp_path, "--demo", env={"NO_COLOR": "1"})
    try:
        from mcp import Client

        await t.wait_for("[running]", "demo")
        async with Client(relay(t), mode="legacy") as c:
            call = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
            await t.wait_armed()

            def button_row():
                rows = [r for r in t.screen_with_attributes().splitlines() if "Deny (n)" in r]
                assert len(rows) == 1, rows
                return rows[0]

            row = button_row()
            # No colour at all (NO_COLOR), yet the focused button is marked twice over:
            # reverse video, and arrows in its text.
            assert "\x1b[7m" in row or ";7m" in row, f"the focused button carries no styling: {row!r}"
            assert "[▸ Deny (n) ◂]" in t.screen()
            assert "[  Approve (y)  ]" in t.screen()
            assert not colours(row), repr(row)
            t.keys("Tab")
            await t.wait_for("[▸ Approve (y) ◂]")
            assert "[  Deny (n)  ]" in t.screen()
            t.keys("Tab")
            await t.wait_for("[▸ Deny (n) ◂]")
            t.keys("Enter")
            r = await asyncio.wait_for(call, 15)
            assert r.is_error is True and "denied" in text_of(r), text_of(r)
    finally:
        t.kill()
