"""spock-tui in a detached tmux session of its own (a private `-L` server, so no user session
is touched): start it, read the screen, send keys. Shared by the control-centre tests."""
import asyncio
import json
import shlex
import subprocess
import time
import uuid

from conftest import EXE, Instance


class Tui:
    def __init__(self, home, *args, width=120, height=40, env=None, prefix=""):
        self.home = home
        self.sock = f"spock-test-{uuid.uuid4().hex[:8]}"
        self.session = "tui"
        flags = " ".join(shlex.quote(a) for a in (*args, "--port", "0"))
        extra = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        cmd = f"{prefix}env SPOCK_TUI_HOME={shlex.quote(str(home))} TERM=xterm-256color {extra} {shlex.quote(EXE)} {flags}"
        self.tmux("new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height), cmd)
        # Keep the pane after exit so a crash can be read.
        self.tmux("set-option", "-t", self.session, "remain-on-exit", "on")

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.sock, *args], capture_output=True, text=True, timeout=10, check=check)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session).stdout

    def screen_with_attributes(self) -> str:
        """The screen with its SGR sequences (bold, reverse, colours) as tmux holds them."""
        return self.tmux("capture-pane", "-p", "-e", "-t", self.session).stdout

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

    async def wait_armed(self, timeout=15.0) -> str:
        """A confirmation is on screen and its approval keys count: the arming countdown
        ("y available in …") and any "… to approve:" (lines not shown yet) are gone."""
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            if "Approve a destructive call" in text and "y available in" not in text and "to approve:" not in text:
                return text
            await asyncio.sleep(0.05)
        raise AssertionError(f"the confirmation did not arm within {timeout}s:\n{text}")

    async def approve(self):
        """Approve the confirmation on screen the way a person does: once it can be approved."""
        await self.wait_armed()
        self.keys("y")

    def pane_dead(self) -> bool:
        r = self.tmux("display-message", "-p", "-t", self.session, "#{pane_dead}", check=False)
        return r.stdout.strip() == "1"

    def kill(self):
        self.tmux("kill-server", check=False)


def start_tui(tmp_path, *args, config=None, width=120, height=40, env=None, prefix=""):
    """Start spock-tui in tmux and wait until both transports are up; the caller kills it.
    The same `tmp_path` again starts it on the same home (a restart). `prefix` is shell put
    before the command (`trap '' HUP; exec `)."""
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True, exist_ok=True)
    if config is not None:
        (home / "config" / "config.toml").write_text(config)
    desc = home / "run" / "endpoint.json"
    if desc.exists():
        desc.unlink()
    # Every toolset listed: these tests drive tools beyond the core set (see conftest).
    t = Tui(home, "--toolsets", "all", *args, width=width, height=height, env=env, prefix=prefix)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            d = json.loads(desc.read_text())
            if d.get("http") and (d.get("unix") or d.get("tcp")):
                return t
        except (FileNotFoundError, json.JSONDecodeError):
            pass
        time.sleep(0.05)
    screen = t.screen()
    t.kill()
    raise RuntimeError(f"spock-tui {' '.join(args)} did not come up:\n{screen}")


def relay(t: Tui):
    return Instance(t.home, None, t.home / "none").relay_params()


def text_of(result) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)
