"""Harness: spock-tui3 control centre in a private tmux server behind ctl_link.py (controllable
slow link), agents via the MCP SDK over `relay`, optional raw attach clients."""
import asyncio, json, os, pathlib, shlex, socket, subprocess, sys, tempfile, time, uuid
EXE = os.environ.get("SPOCK_EXE", "/work/attack/spock-tui3")
HERE = pathlib.Path(__file__).resolve().parent
PY = sys.executable
MODAL = "Approve a destructive call"

def call_text(r):
    return " ".join(getattr(c, "text", "") for c in r.content)

class Tui:
    """mode: 'demo' (in-process --demo) or 'attach' (attach to home)."""
    def __init__(self, up=0.0, down=None, home=None, mode="demo", width=120, height=40, extra=(), config=None):
        down = up if down is None else down
        self.home = pathlib.Path(home) if home else pathlib.Path(tempfile.mkdtemp(prefix="slowlink-"))
        (self.home / "config").mkdir(parents=True, exist_ok=True)
        if config:
            (self.home / "config" / "config.toml").write_text(config)
        self.ctl = self.home / f"link-{uuid.uuid4().hex[:6]}.json"
        self.log = self.home / (self.ctl.stem + ".log")
        self.set_link(up=up, down=down)
        if mode == "demo":
            prog = f"{EXE} --demo --toolsets all --port 0 " + " ".join(map(shlex.quote, extra))
        elif mode == "adb":
            prog = f"{EXE} --toolsets all --port 0 " + " ".join(map(shlex.quote, extra))
        else:
            prog = f"{EXE} attach " + " ".join(map(shlex.quote, extra))
        cmd = (f"env SPOCK_TUI_HOME={shlex.quote(str(self.home))} TERM=xterm-256color "
               f"{PY} {HERE/'ctl_link.py'} {self.ctl} -- {prog}")
        self.sock = f"slowlink-{uuid.uuid4().hex[:8]}"
        self.session = "tui"
        self.tmux("new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height), cmd)
        self.tmux("set-option", "-t", self.session, "remain-on-exit", "on")
        if mode in ("demo", "adb"):
            desc = self.home / "run" / "endpoint.json"
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    d = json.loads(desc.read_text())
                    if d.get("http") and (d.get("unix") or d.get("tcp")): break
                except Exception: pass
                time.sleep(0.05)
    def set_link(self, **kw):
        try: cur = json.loads(self.ctl.read_text())
        except Exception: cur = {"log": str(self.log)}
        cur.update(kw)
        tmp = self.ctl.with_suffix(".tmp"); tmp.write_text(json.dumps(cur)); os.replace(tmp, self.ctl)
    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.sock, *args], capture_output=True, text=True, timeout=10, check=check)
    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", self.session).stdout
    def title(self):
        return self.tmux("display-message", "-p", "-t", self.session, "#{pane_title}", check=False).stdout.strip()
    def keys(self, *k):
        self.tmux("send-keys", "-t", self.session, *k)
    def type(self, text):
        self.tmux("send-keys", "-t", self.session, "-l", text)
    def resize(self, w, h):
        self.tmux("resize-window", "-t", self.session, "-x", str(w), "-y", str(h), check=False)
    def pane_dead(self):
        return self.tmux("display-message", "-p", "-t", self.session, "#{pane_dead}", check=False).stdout.strip() == "1"
    async def wait_for(self, *needles, timeout=15.0):
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            if all(n in text for n in needles): return text
            await asyncio.sleep(0.05)
        raise AssertionError(f"{needles} not on screen:\n{text}")
    async def wait_armed(self, timeout=15.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            t = self.screen()
            if MODAL in t and "y available in" not in t and "to approve:" not in t: return t
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
    def linklog(self):
        try: return self.log.read_text()
        except Exception: return ""

def client(t, name=None):
    from mcp import Client
    from mcp.types import Implementation
    kw = {"client_info": Implementation(name=name, version="1.0")} if name else {}
    return Client(t.relay_params(), mode="legacy", **kw)

async def call(c, tool, args=None):
    r = await c.call_tool(tool, args or {})
    sc = r.structured_content
    return r.is_error, (sc if sc is not None else call_text(r))

def short(rec):
    keys = ("seq","tool","outcome","level","decider","decidedBy","transport","client","arguments","device","reason")
    return {k: rec.get(k) for k in keys if k in rec}

async def result_of(task, timeout):
    done, _ = await asyncio.wait({task}, timeout=timeout)
    return task.result() if done else None

class Raw:
    """A raw attach client on control.sock (a second, fast terminal)."""
    def __init__(self, home):
        home = pathlib.Path(home)
        cred = (home / "config" / "control-credential").read_text().strip()
        self.s = socket.socket(socket.AF_UNIX); self.s.connect(str(home / "run" / "control.sock"))
        self.f = self.s.makefile("rwb")
        self.send({"type": "hello", "protocol_version": 3, "credential": cred, "pid": os.getpid()})
        self.msgs = []
        self.s.settimeout(0.05)
        self.buf = b""
    def send(self, m):
        self.s.sendall((json.dumps(m) + "\n").encode())
    def pump(self):
        try:
            while True:
                d = self.s.recv(1 << 20)
                if not d: break
                self.buf += d
        except (socket.timeout, BlockingIOError):
            pass
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            try: self.msgs.append(json.loads(line))
            except Exception: pass
        return self.msgs
    async def wait(self, pred, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump()
            for m in self.msgs:
                if pred(m): return m
            await asyncio.sleep(0.03)
        return None
    def close(self):
        try: self.send({"type": "detach"})
        except Exception: pass
        self.s.close()
