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
from conftest import EXE, Instance

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]


class Tui:
    """`spock-tui --demo --port 0` in its own tmux server (-L), so no user session is touched."""

    def __init__(self, home, width=120, height=40):
        self.home = home
        self.sock = f"spock-demo-{uuid.uuid4().hex[:8]}"
        self.session = "tui"
        cmd = (
            f"env SPOCK_TUI_HOME={shlex.quote(str(home))} TERM=xterm-256color "
            f"{shlex.quote(EXE)} --demo --port 0"
        )
        self.tmux("new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height), cmd)
        self.tmux("set-option", "-t", self.session, "remain-on-exit", "on")

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.sock, *args], capture_output=True, text=True, timeout=10, check=check)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session).stdout

    def keys(self, *keys):
        self.tmux("send-keys", "-t", self.session, *keys)

    def type(self, text: str):
        # -l: literally, so a word like "Enter" inside the text is not a key name.
        self.tmux("send-keys", "-t", self.session, "-l", text)

    async def wait_for(self, *needles, timeout=15.0) -> str:
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            if all(n in text for n in needles):
                return text
            await asyncio.sleep(0.1)
        raise AssertionError(f"{needles} not on screen within {timeout}s:\n{text}")

    async def wait_gone(self, needle, timeout=10.0):
        deadline = time.monotonic() + timeout
        while needle in self.screen() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert needle not in self.screen(), self.screen()

    def kill(self):
        self.tmux("kill-server", check=False)


@pytest.fixture
def tui(tmp_path):
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text('[access]\nallowed_groups = ["settings"]\n')
    t = Tui(home)
    desc = home / "run" / "endpoint.json"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            d = json.loads(desc.read_text())
            if d.get("http") and (d.get("unix") or d.get("tcp")):
                break
        except (FileNotFoundError, json.JSONDecodeError):
            pass
        time.sleep(0.05)
    else:
        screen = t.screen()
        t.kill()
        raise RuntimeError(f"spock-tui --demo did not come up:\n{screen}")
    yield t
    t.kill()


def relay(t: Tui):
    return Instance(t.home, None, t.home / "none").relay_params()


def text_of(result) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


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
        tui.keys("y")
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
        tui.keys("y")
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is False, text_of(r)

        # 3. Left alone: denied when the 3 s run out, and the modal leaves by itself.
        started = time.monotonic()
        call = asyncio.create_task(c.call_tool("android_clear_app_data", {"packageName": "com.example.shop"}))
        await tui.wait_for("Approve a destructive call", "android_clear_app_data")
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is True and "timed out" in text_of(r), text_of(r)
        assert 2.0 <= time.monotonic() - started < 10
        await tui.wait_gone("Approve a destructive call")
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
