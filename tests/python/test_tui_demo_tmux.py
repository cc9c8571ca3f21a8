"""The control centre on the demo device, as a person meets it: `spock-tui --demo` in a detached
tmux session (its own tmux server), a real MCP client over the stdio relay, keys sent with
`tmux send-keys`. Destructive calls on a real (virtual) app: approved → the app is gone,
denied → nothing changed, unanswered → denied at the timeout, each decision in Activity and
History. Then the Batch screen from the keyboard: record two calls under a name, stop, run the
recorded task and watch it succeed."""
import asyncio
import json
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
    t = start_tui(tmp_path, "--demo", config='[access]\nallowed_groups = ["settings"]\n')
    yield t
    t.kill()


async def packages(c) -> str:
    r = await c.call_tool("android_list_packages", {})
    assert r.is_error is False, text_of(r)
    return json.dumps(r.structured_content)


async def test_destructive_calls_on_the_demo_then_record_and_run_a_batch(tui):
    from mcp import Client

    await tui.wait_for("[running]", "demo")
    async with Client(relay(tui), mode="legacy") as c:
        assert "com.example.notes" in await packages(c)

        # 1. Uninstall, approved with y: the modal names the tool, the device and the package.
        call = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
        screen = await tui.wait_for("Approve a destructive call", "android_uninstall_app", '"com.example.notes"')
        assert "sim-1" in screen, screen
        await tui.approve()
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is False, text_of(r)
        assert "com.example.notes" not in await packages(c)

        # 2. Clearing the shop's data, denied with n: refused, and the app is untouched.
        call = asyncio.create_task(c.call_tool("android_clear_app_data", {"packageName": "com.example.shop"}))
        await tui.wait_for("Approve a destructive call", "android_clear_app_data", '"com.example.shop"')
        tui.keys("n")
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is True and "denied" in text_of(r), text_of(r)
        assert "com.example.shop" in await packages(c)

        # The timeout comes down to 3 s through a confirmed settings change (approved with y).
        call = asyncio.create_task(c.call_tool("spock_update_settings", {"confirmTimeoutSecs": 3}))
        await tui.wait_for("Approve a destructive call", '"confirmTimeoutSecs": 3')
        await tui.approve()
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is False, text_of(r)

        # 3. Left alone: denied when the 3 s run out, and the modal leaves by itself.
        started = time.monotonic()
        call = asyncio.create_task(c.call_tool("android_clear_app_data", {"packageName": "com.example.shop"}))
        await tui.wait_for("Approve a destructive call", "android_clear_app_data")
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is True and "timed out" in text_of(r), text_of(r)
        assert 2.0 <= time.monotonic() - started < 10
        # The modal turns into the "timed out" notice (keys held back), then leaves.
        await tui.wait_for("Request timed out")
        await tui.wait_gone("Request timed out")  # says so for a moment, keys held back
        assert "com.example.shop" in await packages(c)

        # Each decision, in Activity and in History.
        for key, title in (("3", "Activity —"), ("4", "History —")):
            tui.keys(key)
            screen = await tui.wait_for(title, "denied (timeout)")
            assert "android_uninstall_app" in screen and "android_clear_app_data" in screen, screen
            assert "ok (key)" in screen and "denied (key)" in screen, screen

        # 4. The Batch screen from the keyboard: start a recording and name it.
        tui.keys("6")
        await tui.wait_for("Runner", "not recording", "Tasks (0)")
        tui.keys("m")
        await tui.wait_for("Recording name:")
        tui.type("shop tour")
        tui.keys("Enter")
        await tui.wait_for("● REC 0 steps", "shop tour")

        # Two calls from the agent become the recording's two steps.
        r = await c.call_tool("android_launch_app", {"packageName": "com.example.shop"})
        assert r.is_error is False, text_of(r)
        r = await c.call_tool("android_open_deep_link", {"uri": "shop://product/42"})
        assert r.is_error is False, text_of(r)
        await tui.wait_for("● REC 2 steps")

        # The indicator follows the person to every screen.
        tui.keys("1")
        await tui.wait_for("● REC 2 steps", "Clients (as they identified themselves)")
        tui.keys("6")

        # Stop: saved as a normal task, selected in the list.
        tui.keys("m")
        screen = await tui.wait_for("Tasks (1)", "recording saved as task")
        assert "● REC" not in screen
        assert "shop tour" in screen and "recorded" in screen, screen
        err_free = await c.call_tool("android_batch_list", {})
        tasks = err_free.structured_content["tasks"]
        assert [t["name"] for t in tasks] == ["shop tour"] and tasks[0]["stepCount"] == 2, tasks

        # Run it from the screen: the run history shows it succeed with both steps ok.
        tui.keys("r")
        screen = await tui.wait_for("succeeded", "2/2", timeout=30)
        assert "Runs (1)" in screen, screen
        hist = await c.call_tool("android_batch_history_list", {})
        runs = hist.structured_content["runs"]
        assert len(runs) == 1 and runs[0]["state"] == "succeeded", runs
