"""Issue 31, items 6 and 7, in a real terminal with a real MCP client: the person's keys reach
what the person was looking at. An agent's `spock_navigate` while the person types a History
search is offered in the footer instead of switching, so the rest of the word and Enter stay in
the search and no agent-saved task runs (in `spock-tui` and in `spock-tui attach`); following
the offer is one key. On Batch, Enter runs the task the cursor is on even after the agent saves
a task whose name sorts into its row, and not on the first Enter after the agent saved other
steps under that task's id."""
import asyncio
import shlex
import shutil
import uuid

import pytest
from conftest import EXE, call, start_instance
from tmux_harness import Tui, relay, start_tui

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

AGENTS_TASK = {"id": "agents", "name": "cleanup", "steps": [{"tool": "android_get_battery_info", "arguments": {}}]}


class Attached(Tui):
    """`spock-tui attach` in a tmux session of its own."""

    def __init__(self, home, width=120, height=40):
        self.home = home
        self.sock = f"spock-test-{uuid.uuid4().hex[:8]}"
        self.session = "tui"
        cmd = f"env SPOCK_TUI_HOME={shlex.quote(str(home))} TERM=xterm-256color {shlex.quote(EXE)} attach; sleep 30"
        self.tmux("new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height), cmd)
        self.tmux("set-option", "-t", self.session, "remain-on-exit", "on")


async def screen_of(c) -> str:
    err, st = await call(c, "spock_get_status")
    assert not err, st
    return st["screen"]


async def navigate_while_typing(t: Tui, c):
    """The attack, then the offer followed."""
    err, saved = await call(c, "android_batch_save", AGENTS_TASK)
    assert not err, saved
    t.keys("4")
    await t.wait_for("History —", "/ search")
    t.keys("/")
    t.type("t")
    await t.wait_for("/t▏")
    # The agent can tell the person is on History (that is what makes the timing easy).
    assert await screen_of(c) == "history"
    r = await c.call_tool("spock_navigate", {"destination": "batch"})
    assert r.structured_content["applied"] is False, r.structured_content
    assert "footer" in r.structured_content["reason"], r.structured_content
    # The rest of the word, and Enter: on Batch, Enter would run the agent's only task.
    t.type("ap")
    t.keys("Enter")
    screen = await t.wait_for("/tap")
    assert "Tasks (" not in screen, screen
    assert await screen_of(c) == "history"
    err, hist = await call(c, "android_batch_history_list")
    assert not err and hist["total"] == 0, hist
    # The footer offered it; its key follows (Esc leaves the search first).
    t.keys("Escape")
    await t.wait_for("an agent asks")
    # The person reads the offer (its key counts once it has been on screen a moment).
    await asyncio.sleep(1.0)
    t.keys("o")
    await t.wait_for("Tasks (1)", "cleanup")
    assert await screen_of(c) == "batch"
    err, hist = await call(c, "android_batch_history_list")
    assert not err and hist["total"] == 0, hist


async def test_navigation_never_steals_a_search_in_process(tmp_path):
    from mcp import Client

    t = start_tui(tmp_path, "--demo")
    try:
        await t.wait_for("[running]")
        async with Client(relay(t), mode="legacy") as c:
            await navigate_while_typing(t, c)
    finally:
        t.kill()


async def test_navigation_never_steals_a_search_attached(tmp_path):
    from mcp import Client

    inst = start_instance(tmp_path, "--demo")
    t = None
    try:
        t = Attached(inst.home)
        await t.wait_for("attached to spock-tui")
        async with Client(inst.relay_params(), mode="legacy") as c:
            await navigate_while_typing(t, c)
    finally:
        if t is not None:
            t.kill()
        inst.stop()


async def test_batch_enter_runs_the_task_under_the_cursor_not_the_row(tmp_path):
    from mcp import Client

    t = start_tui(tmp_path, "--demo")
    try:
        await t.wait_for("[running]")
        async with Client(relay(t), mode="legacy") as c:
            err, saved = await call(c, "android_batch_save", {
                "id": "smoke", "name": "smoke", "steps": [{"tool": "android_get_battery_info", "arguments": {}}]})
            assert not err, saved
            t.keys("6")
            await t.wait_for("Tasks (1)", "smoke")
            # The agent's task sorts where the person's cursor is.
            err, saved = await call(c, "android_batch_save", {
                "id": "agents", "name": "sm0ke-cleanup", "steps": [{"tool": "android_get_battery_info", "arguments": {}}]})
            assert not err, saved
            await t.wait_for("Tasks (2)", "sm0ke-cleanup")
            t.keys("Enter")
            await t.wait_for(" as run_")
            deadline = asyncio.get_running_loop().time() + 15
            while True:
                err, hist = await call(c, "android_batch_history_list")
                if hist["total"] or asyncio.get_running_loop().time() > deadline:
                    break
                await asyncio.sleep(0.1)
            assert [r["taskId"] for r in hist["runs"]] == ["smoke"], hist
            while hist["runs"][0]["state"] == "processing" and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.1)
                err, hist = await call(c, "android_batch_history_list")
            # The agent saves other steps under the person's task's id (replacing a task asks
            # the person, who says yes): the next Enter says the task changed and runs
            # nothing; the one after runs it as it is now.
            save = asyncio.create_task(call(c, "android_batch_save", {
                "id": "smoke", "name": "smoke", "steps": [{"tool": "android_get_device_info", "arguments": {}}]}))
            await t.approve()
            err, saved = await asyncio.wait_for(save, 15)
            assert not err, saved
            await t.wait_for("was changed by someone else")
            t.keys("Enter")
            await t.wait_for("changed since you selected it")
            err, hist = await call(c, "android_batch_history_list")
            assert hist["total"] == 1, hist
            t.keys("Enter")
            deadline = asyncio.get_running_loop().time() + 15
            while hist["total"] < 2 and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.1)
                err, hist = await call(c, "android_batch_history_list")
            assert [r["taskId"] for r in hist["runs"]] == ["smoke", "smoke"], hist
    finally:
        t.kill()
