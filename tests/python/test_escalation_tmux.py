"""The control centre as a person meets an agent that floods it or escalates a safe call:
`spock-tui --demo` in a detached tmux session, a real MCP client over the stdio relay, keys
sent with `tmux send-keys`. A fourth waiting call from one client is refused before it is shown;
a push over an existing file is shown as destructive with the file it would overwrite, and a
denial leaves the file as it was."""
import asyncio
import json
import shutil

import pytest
from tmux_harness import relay, start_tui, text_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]


@pytest.fixture
def tui(tmp_path):
    proj = tmp_path / "shop"
    (proj / "app").mkdir(parents=True)
    (proj / "settings.gradle.kts").write_text('include(":app")\n')
    (proj / "notes.txt").write_text("the agent's notes\n")
    t = start_tui(tmp_path, "--demo", "--project", str(proj))
    yield t
    t.kill()


async def test_one_agent_cannot_bury_the_person_in_approvals(tui):
    from mcp import Client

    await tui.wait_for("[running]", "demo")
    async with Client(relay(tui), mode="legacy") as c:
        calls = [asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))]
        await tui.wait_for("Approve a destructive call")
        for _ in range(2):
            calls.append(asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"})))
        await tui.wait_for("(1 of 3 waiting)")
        # The fourth is refused at once and never joins the queue.
        r = await asyncio.wait_for(c.call_tool("android_clear_app_data", {"packageName": "com.example.shop"}), 15)
        assert r.is_error is True and "too many calls waiting for approval" in text_of(r), text_of(r)
        assert r.structured_content["kind"] == "refused"
        assert "(1 of 3 waiting)" in tui.screen()
        for left in (2, 1, 0):
            tui.keys("n")
            if left > 1:
                await tui.wait_for(f"(1 of {left} waiting)")
            elif left == 1:
                await tui.wait_gone("waiting)")
        await tui.wait_gone("Approve a destructive call")
        for call in calls:
            r = await asyncio.wait_for(call, 15)
            assert r.is_error is True and r.structured_content["kind"] == "denied", text_of(r)
        r = await c.call_tool("android_list_packages", {})
        assert "com.example.notes" in json.dumps(r.structured_content)


async def test_a_push_over_an_existing_file_asks_and_names_the_file(tui, tmp_path):
    from mcp import Client

    await tui.wait_for("[running]", "demo")
    async with Client(relay(tui), mode="legacy") as c:
        r = await c.call_tool("android_push_file", {"localPath": "notes.txt", "devicePath": "/sdcard/Download/notes.txt"})
        assert r.is_error is False, text_of(r)
        (tmp_path / "shop" / "notes.txt").write_text("replaced\n")
        call = asyncio.create_task(c.call_tool(
            "android_push_file", {"localPath": "notes.txt", "devicePath": "/sdcard/Download/notes.txt", "overwrite": True}))
        screen = await tui.wait_for("Approve a destructive call", "android_push_file", "Reason", "overwrites")
        assert "/storage/emulated/0/Download/notes.txt" in screen, screen
        tui.keys("n")
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is True and r.structured_content["kind"] == "denied", text_of(r)
        r = await c.call_tool("android_pull_file", {"devicePath": "/sdcard/Download/notes.txt"})
        assert r.structured_content["text"] == "the agent's notes\n", text_of(r)
