"""Harness: spock-tui2 control centre in a private tmux server, agents via MCP SDK over relay."""
import asyncio, json, os, pathlib, shlex, subprocess, tempfile, time, uuid
EXE = "/work/attack/spock-tui2"

def call_text(r):
    return " ".join(getattr(c, "text", "") for c in r.content)

class Tui:
    def __init__(self, *args, width=120, height=40, attach_home=None):
        if attach_home:
            self.home = pathlib.Path(attach_home)
            cmd = f"env SPOCK_TUI_HOME={shlex.quote(str(self.home))} TERM=xterm-256color {EXE} attach; sleep 60"
        else:
            self.home = pathlib.Path(tempfile.mkdtemp(prefix="keys-"))
            (self.home / "config").mkdir(parents=True, exist_ok=True)
            flags = " ".join(shlex.quote(a) for a in (*args, "--port", "0"))
            cmd = f"env SPOCK_TUI_HOME={shlex.quote(str(self.home))} TERM=xterm-256color {EXE} {flags}; sleep 60"
        self.sock = f"keys-{uuid.uuid4().hex[:8]}"
        self.session = "tui"
        self.tmux("new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height), cmd)
        if not attach_home:
            desc = self.home / "run" / "endpoint.json"
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    d = json.loads(desc.read_text())
                    if d.get("http") and (d.get("unix") or d.get("tcp")):
                        break
                except Exception:
                    pass
                time.sleep(0.05)

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.sock, *args], capture_output=True, text=True, timeout=10, check=check)
    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", self.session).stdout
    def keys(self, *k):
        self.tmux("send-keys", "-t", self.session, *k)
    def type(self, text, delay=0.0):
        if delay:
            for ch in text:
                self.tmux("send-keys", "-t", self.session, "-l", ch); time.sleep(delay)
        else:
            self.tmux("send-keys", "-t", self.session, "-l", text)
    def resize(self, w, h):
        self.tmux("resize-window", "-t", self.session, "-x", str(w), "-y", str(h), check=False)
    async def wait_for(self, *needles, timeout=15.0):
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            if all(n in text for n in needles):
                return text
            await asyncio.sleep(0.05)
        raise AssertionError(f"{needles} not on screen:\n{text}")
    async def wait_armed(self, timeout=15.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            t = self.screen()
            if "Approve a destructive call" in t and "y available in" not in t and "to approve:" not in t:
                return t
            await asyncio.sleep(0.05)
        raise AssertionError("not armed:\n" + self.screen())
    def kill(self):
        self.tmux("kill-server", check=False)
    def relay_params(self):
        from mcp.client.stdio import StdioServerParameters
        return StdioServerParameters(command=EXE, args=["relay", str(self.home / "run" / "endpoint.json")],
                                     env={**os.environ, "SPOCK_TUI_HOME": str(self.home)})
    def audit(self):
        out = []
        for p in sorted(self.home.rglob("audit*.jsonl")):
            for line in p.read_text().splitlines():
                try: out.append(json.loads(line))
                except Exception: pass
        return out

async def call(c, tool, args=None):
    r = await c.call_tool(tool, args or {})
    sc = r.structured_content
    return r.is_error, (sc if sc is not None else call_text(r))

def client(t, name="agent"):
    from mcp import Client
    return Client(t.relay_params(), mode="legacy")

def short(rec):
    keys = ("seq","tool","outcome","level","decider","decidedBy","transport","client","arguments","device","escalated")
    return {k: rec.get(k) for k in keys if k in rec}

async def result_of(task, timeout):
    done, _ = await asyncio.wait({task}, timeout=timeout)
    return task.result() if done else None
