"""Shared harness for the WHO-ASKS attacks (black-box, release binary).

serve --demo (in-process device) in a private SPOCK_TUI_HOME; a raw attach client (protocol 3)
or a real `spock-tui attach` in tmux plays the person; MCP agents are raw JSON-RPC over the
stdio relay (full control of clientInfo, env, parent process, elicitation answers) or over HTTP."""
import glob
import json
import os
import queue
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

for p in glob.glob("/work/main/.venv/lib/python3*/site-packages"):
    if p not in sys.path:
        sys.path.insert(0, p)
import httpx2 as httpx  # noqa: E402

EXE = os.environ.get("SPOCK_BIN", "/work/attack/spock-tui2")
NOTES = {"packageName": "com.example.notes"}
VIA_CLIENT = "[confirm]\nvia_client = true\n[safety]\nconfirm_timeout_secs = {secs}\n"


def log(*a):
    print(*a, flush=True)


class Serve:
    def __init__(self, config=None, args=("--demo",)):
        self.tmp = tempfile.mkdtemp(prefix="who-")
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(os.path.join(self.home, "config"), mode=0o700)
        if config:
            open(os.path.join(self.home, "config", "config.toml"), "w").write(config)
        self.err = os.path.join(self.tmp, "serve.err")
        self.env = {**os.environ, "SPOCK_TUI_HOME": self.home}
        self.proc = subprocess.Popen([EXE, "serve", "--port", "0", "--toolsets", "all", *args], env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.err, "w"))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("serve exited: " + open(self.err).read())
            try:
                d = self.descriptor
                if d.get("http") and os.path.exists(os.path.join(self.home, "run", "control.sock")):
                    return
            except Exception:
                pass
            time.sleep(0.05)
        raise RuntimeError("serve not up")

    @property
    def desc_path(self):
        return os.path.join(self.home, "run", "endpoint.json")

    @property
    def descriptor(self):
        return json.load(open(self.desc_path))

    @property
    def url(self):
        return self.descriptor["http"]

    @property
    def token(self):
        return self.descriptor["token"]

    def audit(self, tool=None):
        p = os.path.join(self.home, "data", "audit", "audit.jsonl")
        out = []
        if os.path.exists(p):
            for l in open(p):
                try:
                    r = json.loads(l)
                except Exception:
                    continue
                if tool is None or r.get("tool") == tool:
                    out.append(r)
        return out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except Exception:
                self.proc.kill()
                self.proc.wait()


class Person:
    """Raw attach client (protocol 3); a reader thread queues every message."""

    def __init__(self, serve, tty="/dev/pts/77"):
        self.serve = serve
        path = os.path.join(serve.home, "run", "control.sock")
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.f = self.s.makefile("r", encoding="utf-8")
        self.q = queue.Queue()
        self.all = []
        cred = open(os.path.join(serve.home, "config", "control-credential")).read().strip()
        self.send(type="hello", protocol_version=3, credential=cred, pid=os.getpid(), tty=tty)
        self.welcome = json.loads(self.f.readline())
        assert self.welcome["type"] == "welcome", self.welcome
        self.you = self.welcome["you"]
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for line in self.f:
                try:
                    m = json.loads(line)
                except Exception:
                    continue
                self.all.append(m)
                self.q.put(m)
        except Exception:
            pass

    def send(self, **m):
        self.s.sendall((json.dumps(m) + "\n").encode())

    def until(self, kind, timeout=15, **match):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                m = self.q.get(timeout=left)
            except queue.Empty:
                return None
            if m["type"] == kind and all(m.get(k) == v for k, v in match.items()):
                return m

    def ask(self, timeout=15, tool=None):
        while True:
            m = self.until("confirm_asked", timeout)
            if m is None:
                return None
            if tool is None or m["ask"]["tool"] == tool:
                return m["ask"]

    def seen(self, kind, **match):
        return [m for m in self.all if m["type"] == kind and all(m.get(k) == v for k, v in match.items())]

    def approve(self, cid, wait=0.8):
        self.send(type="displayed", call_id=cid)
        time.sleep(wait)
        self.send(type="decide", call_id=cid, approve=True)

    def deny(self, cid):
        self.send(type="decide", call_id=cid, approve=False)

    def close(self):
        try:
            self.send(type="detach")
        except Exception:
            pass
        try:
            self.s.close()
        except Exception:
            pass


class Stdio:
    """Raw MCP 2025-06-18 client over `spock-tui relay` (or any command line that ends in it).
    on_elicit(params) -> result dict (called in a thread, may block)."""

    def __init__(self, serve, name="agent", version="1.0", env=None, argv=None, on_elicit=None, elicit=True,
                 proto="2025-06-18", cwd=None):
        self.serve = serve
        cmd = argv or [EXE, "relay", serve.desc_path]
        self.proc = subprocess.Popen(cmd, env={**serve.env, **(env or {})}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=open(os.path.join(serve.tmp, "relay.err"), "a"), cwd=cwd)
        self.lock = threading.Lock()
        self.id = 0
        self.waiters = {}
        self.on_elicit = on_elicit
        self.requests = []
        threading.Thread(target=self._read, daemon=True).start()
        caps = {"elicitation": {"form": {}}} if elicit else {}
        r = self.rpc("initialize", {"protocolVersion": proto, "capabilities": caps,
                                    "clientInfo": {"name": name, "version": version}}, timeout=30)
        assert "result" in r, r
        self.init = r["result"]
        self.notify("notifications/initialized")

    def _write(self, m):
        with self.lock:
            self.proc.stdin.write((json.dumps(m) + "\n").encode())
            self.proc.stdin.flush()

    def _read(self):
        for line in self.proc.stdout:
            try:
                m = json.loads(line)
            except Exception:
                continue
            if "method" in m and "id" in m:
                self.requests.append(m)
                threading.Thread(target=self._serve_req, args=(m,), daemon=True).start()
            elif "id" in m and m["id"] in self.waiters:
                self.waiters.pop(m["id"]).put(m)

    def _serve_req(self, m):
        if m["method"] == "elicitation/create" and self.on_elicit:
            res = self.on_elicit(m["params"])
            if res is None:
                return
            self._write({"jsonrpc": "2.0", "id": m["id"], "result": res})
        elif m["method"] == "ping":
            self._write({"jsonrpc": "2.0", "id": m["id"], "result": {}})
        else:
            self._write({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}})

    def notify(self, method, params=None):
        self._write({"jsonrpc": "2.0", "method": method, "params": params or {}})

    def rpc(self, method, params=None, timeout=120):
        with self.lock:
            self.id += 1
            i = self.id
        q = queue.Queue()
        self.waiters[i] = q
        self._write({"jsonrpc": "2.0", "id": i, "method": method, "params": params or {}})
        try:
            return q.get(timeout=timeout)
        except queue.Empty:
            return {"timeout": True}

    def call(self, tool, args=None, timeout=120):
        m = self.rpc("tools/call", {"name": tool, "arguments": args or {}}, timeout)
        if "result" not in m:
            return True, m
        res = m["result"]
        sc = res.get("structuredContent")
        if sc is None:
            sc = {"text": " ".join(c.get("text", "") for c in res.get("content", []) if isinstance(c, dict))}
        return bool(res.get("isError")), sc

    def close(self):
        try:
            self.proc.stdin.close()
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def parse_body(r):
    ct = r.headers.get("content-type", "")
    if "text/event-stream" in ct:
        out = None
        for line in r.text.splitlines():
            if line.startswith("data:"):
                try:
                    m = json.loads(line[5:].strip())
                except Exception:
                    continue
                if "result" in m or "error" in m:
                    out = m
        return out
    try:
        return r.json()
    except Exception:
        return {"raw": r.text, "status": r.status_code}


class Stateless:
    """MCP 2026-07-28 requests over HTTP: each POST stands alone, identity in _meta."""

    def __init__(self, serve, name="agent", version="3.0", headers=None, caps=None):
        self.serve, self.name, self.version = serve, name, version
        self.h = {"Authorization": f"Bearer {serve.token}", "Accept": "application/json, text/event-stream",
                  "Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28"}
        self.h |= headers or {}
        self.caps = {"elicitation": {"form": {}}} if caps is None else caps
        self.id = 100

    def rpc(self, method, params=None, name=None, timeout=120):
        self.id += 1
        p = dict(params or {})
        p["_meta"] = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientInfo": {"name": self.name, "version": self.version},
                      "io.modelcontextprotocol/clientCapabilities": self.caps}
        h = dict(self.h) | {"Mcp-Method": method}
        if name:
            h["Mcp-Name"] = name
        r = httpx.post(self.serve.url, headers=h, timeout=timeout, json={"jsonrpc": "2.0", "id": self.id, "method": method, "params": p})
        return parse_body(r)

    def call(self, tool, args=None, state=None, responses=None, timeout=120):
        params = {"name": tool, "arguments": args or {}}
        if state is not None:
            params["requestState"] = state
        if responses is not None:
            params["inputResponses"] = responses
        return self.rpc("tools/call", params, name=tool, timeout=timeout)


YES = {"spock_approval": {"action": "accept", "content": {"approve": True}}}


class Http:
    """A 2025-06-18 session client over raw HTTP."""

    def __init__(self, serve, name="agent", version="1.0", headers=None, caps=None):
        self.serve = serve
        self.h = {"Authorization": f"Bearer {serve.token}", "Accept": "application/json, text/event-stream",
                  "Content-Type": "application/json"} | (headers or {})
        self.id = 1
        r = httpx.post(serve.url, headers=self.h, timeout=30, json={"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": "2025-06-18", "capabilities": caps or {}, "clientInfo": {"name": name, "version": version}}})
        assert r.status_code == 200, r.text
        self.sid = r.headers.get("mcp-session-id")
        self.h |= {"Mcp-Session-Id": self.sid, "MCP-Protocol-Version": "2025-06-18"}
        httpx.post(serve.url, headers=self.h, timeout=30, json={"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, tool, args=None, timeout=120):
        self.id += 1
        r = httpx.post(self.serve.url, headers=self.h, timeout=timeout,
                       json={"jsonrpc": "2.0", "id": self.id, "method": "tools/call", "params": {"name": tool, "arguments": args or {}}})
        return parse_body(r)


def installed(serve, pkg="com.example.notes"):
    s = Stateless(serve, name="checker", caps={})
    m = s.call("android_list_packages", {"filter": pkg})
    return m["result"]["structuredContent"]["count"] == 1


def bg(fn, *a, **kw):
    box = {}

    def run():
        try:
            box["r"] = fn(*a, **kw)
        except Exception as e:  # noqa
            box["r"] = ("EXC", repr(e))
    t = threading.Thread(target=run, daemon=True)
    t.start()
    box["t"] = t
    return box


def wait_box(box, timeout=60):
    box["t"].join(timeout)
    return box.get("r", "STILL RUNNING")


class Tmux:
    """The person's real terminal: `spock-tui attach` in a private tmux server."""

    def __init__(self, serve, width=140, height=45, name="who"):
        self.sock = os.path.join(serve.tmp, "tmux.sock")
        self.name = name
        cmd = f"SPOCK_TUI_HOME={serve.home} {EXE} attach"
        subprocess.run(["tmux", "-S", self.sock, "new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), cmd], check=True)

    def screen(self):
        return subprocess.run(["tmux", "-S", self.sock, "capture-pane", "-p", "-t", self.name], capture_output=True, text=True).stdout

    def screen_escapes(self):
        return subprocess.run(["tmux", "-S", self.sock, "capture-pane", "-e", "-p", "-t", self.name], capture_output=True, text=True).stdout

    def keys(self, *k):
        subprocess.run(["tmux", "-S", self.sock, "send-keys", "-t", self.name, *k])

    def wait_for(self, *texts, timeout=20):
        deadline = time.monotonic() + timeout
        s = ""
        while time.monotonic() < deadline:
            s = self.screen()
            if all(t in s for t in texts):
                return s
            time.sleep(0.2)
        return None

    def kill(self):
        subprocess.run(["tmux", "-S", self.sock, "kill-server"], capture_output=True)
