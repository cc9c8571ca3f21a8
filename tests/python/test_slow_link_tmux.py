"""Issue 44, items 1–3, over a slow link: the control centre runs behind a relay that passes
every byte DELAY seconds late both ways (`slow_link.py`, the trial's method: an SSH session to
a far lab machine), in a real terminal (tmux), with a real MCP client as the agent.

At round trips of 0.7, 1.2 and 2.5 s:
- `y` typed every 50 ms from the moment the agent asks until the request is on the person's
  screen, then `y`, Tab and Enter right after it appears: nothing is approved (the keys were
  typed before the person could see the request, or inside its arming time measured from when
  the terminal showed it);
- the control centre and the server keep running (no cursor-position query to time out);
- a person who waits for the request to arm on their screen approves it with one `y`.
And one click on `[ Approve (y) ]` only moves focus: the call still waits for a key."""
import asyncio
import pathlib
import shlex
import shutil
import sys
import time
import uuid

import pytest
from conftest import EXE
from tmux_harness import Tui, relay, text_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

MODAL = "Approve a destructive call"
SLOW_LINK = pathlib.Path(__file__).with_name("slow_link.py")


class SlowTui(Tui):
    """`spock-tui ARGS` behind a link with `rtt` seconds of round trip, in tmux."""

    def __init__(self, home, rtt, *args, width=120, height=40):
        self.home = home
        self.sock = f"spock-test-{uuid.uuid4().hex[:8]}"
        self.session = "tui"
        prog = " ".join(shlex.quote(a) for a in (EXE, *args))
        cmd = (
            f"env SPOCK_TUI_HOME={shlex.quote(str(home))} TERM=xterm-256color "
            f"{shlex.quote(sys.executable)} {shlex.quote(str(SLOW_LINK))} {rtt / 2} -- {prog}"
        )
        self.tmux("new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height), cmd)
        self.tmux("set-option", "-t", self.session, "remain-on-exit", "on")


async def start_slow(tmp_path, rtt) -> SlowTui:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True, exist_ok=True)
    t = SlowTui(home, rtt, "--demo", "--toolsets", "all", "--port", "0")
    await t.wait_for("[running]", "demo", timeout=30 + 4 * rtt)
    return t


async def typed_before_seen(t: Tui, c, rtt: float):
    """The trial's sequence: keys before and just after the request reaches the screen."""
    call = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
    deadline = time.monotonic() + 15 + 2 * rtt
    # `y` every 50 ms while the screen has not shown the request yet (the server drew it a
    # half round trip before this screen shows it).
    while MODAL not in t.screen():
        assert time.monotonic() < deadline, t.screen()
        t.keys("y")
        await asyncio.sleep(0.05)
    # The moment it appears: y, and Tab Enter (Enter presses the focused button).
    t.keys("y")
    t.keys("Tab")
    t.keys("Enter")
    # Everything typed has reached the server and been acted on.
    await asyncio.sleep(rtt + 1.0)
    screen = t.screen()
    assert not call.done(), f"approved by keys typed before the request was seen:\n{screen}"
    assert MODAL in screen, screen
    return call


@pytest.mark.parametrize("rtt", [0.7, 1.2, 2.5])
async def test_keys_before_the_request_is_on_screen_approve_nothing(tmp_path, rtt):
    from mcp import Client

    t = await start_slow(tmp_path, rtt)
    try:
        async with Client(relay(t), mode="legacy") as c:
            call = await typed_before_seen(t, c, rtt)
            # The person sees it, waits for it to arm on their screen, and approves.
            await t.wait_armed(timeout=15 + 2 * rtt)
            t.keys("y")
            r = await asyncio.wait_for(call, 15 + 2 * rtt)
            assert r.is_error is False, text_of(r)
            # Still serving, still on screen.
            r = await c.call_tool("spock_get_status", {})
            assert r.is_error is False, text_of(r)
        assert not t.pane_dead(), t.screen()
        assert "[running]" in t.screen(), t.screen()
    finally:
        t.kill()


async def test_attach_over_a_slow_link_arms_from_the_screen(tmp_path):
    """The same for `spock-tui attach`, over a 1.2 s round trip, with the server in its own
    process: the keys approve nothing, the attached centre stays, a seen request is approved."""
    from mcp import Client
    from tmux_harness import start_tui

    server = start_tui(tmp_path, "--demo")
    t = SlowTui(server.home, 1.2, "attach")
    try:
        await t.wait_for("attached to spock-tui", timeout=30)
        async with Client(relay(server), mode="legacy") as c:
            call = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
            # The serving process's own screen answers nothing: the person is on the slow one.
            deadline = time.monotonic() + 20
            while MODAL not in t.screen():
                assert time.monotonic() < deadline, t.screen()
                t.keys("y")
                await asyncio.sleep(0.05)
            t.keys("y")
            t.keys("Tab")
            t.keys("Enter")
            await asyncio.sleep(2.2)
            assert not call.done(), t.screen()
            await t.wait_armed(timeout=20)
            t.keys("y")
            r = await asyncio.wait_for(call, 20)
            assert r.is_error is False, text_of(r)
        assert not t.pane_dead(), t.screen()
    finally:
        t.kill()
        server.kill()


async def test_a_click_on_approve_only_moves_focus(tmp_path):
    from mcp import Client
    from tmux_harness import start_tui

    t = start_tui(tmp_path, "--demo")
    try:
        await t.wait_for("[running]", "demo")
        async with Client(relay(t), mode="legacy") as c:
            call = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
            screen = await t.wait_armed()
            row = next(i for i, line in enumerate(screen.splitlines()) if "Approve (y)" in line)
            col = screen.splitlines()[row].index("Approve (y)")
            # An SGR mouse press and release on the button (1-based column and row).
            press = f"\x1b[<0;{col + 2};{row + 1}M"
            release = f"\x1b[<0;{col + 2};{row + 1}m"
            t.type(press + release)
            await t.wait_for("a click only moves focus")
            await asyncio.sleep(0.5)
            assert not call.done(), t.screen()
            # Enter presses the button the click focused.
            t.keys("Enter")
            r = await asyncio.wait_for(call, 15)
            assert r.is_error is False, text_of(r)
    finally:
        t.kill()
