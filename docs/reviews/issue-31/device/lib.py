"""Shared harness for the device/lease attacks (black-box, release binary).

Env: private SPOCK_TUI_HOME, `spock-tui sim` adbd devices, private real adb server(s),
`spock-tui serve`, a raw attach client playing the person, raw MCP-over-HTTP clients."""
import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, "/work/main/.venv/lib/python3.12/site-packages")
import glob
for p in glob.glob("/work/main/.venv/lib/python3*/site-packages"):
    if p not in sys.path:
        sys.path.insert(0, p)
import httpx2 as httpx  # noqa: E402

EXE = "/work/attack/spock-tui"
DEMO = "/work/main/assets/demo/demo.toml"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log(*a):
    print(*a, flush=True)


class AdbServer:
    def __init__(self, tmp, name, port=None):
        self.port = port or free_port()
        self.home = os.path.join(tmp, f"adbhome-{name}")
        os.makedirs(self.home, exist_ok=True)
        self.env = {**os.environ, "ADB_EMU": "0", "HOME": self.home}
        self.proc = subprocess.Popen(["adb", "-P", str(self.port), "server", "nodaemon"], env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(tmp, f"adb-{name}.log"), "a"))
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError("adb server did not start")

    def adb(self, *args, timeout=30):
        r = subprocess.run(["adb", "-P", str(self.port), *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        return r.stdout + r.stderr

    def connect(self, addr, wait_name=None):
        out = self.adb("connect", addr)
        name = wait_name or addr
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if f"{name}\tdevice" in self.adb("devices"):
                return out
            time.sleep(0.1)
        return out + " / NOT ONLINE: " + self.adb("devices")

    @property
    def endpoint(self):
        return f"127.0.0.1:{self.port}"

    def stop(self):
        try:
            self.adb("kill-server", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


class Sim:
    def __init__(self, tmp, name, *args):
        self.err = os.path.join(tmp, f"sim-{name}.err")
        self.proc = subprocess.Popen([EXE, "sim", *args], stdout=subprocess.PIPE, stderr=open(self.err, "w"), text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("sim printed nothing: " + open(self.err).read())
        self.info = json.loads(line)

    def ctl(self, serial=None, **cmd):
        host, port = self.info["control"].rsplit(":", 1)
        msg = dict(cmd)
        if serial is not None:
            msg["serial"] = serial
        with socket.create_connection((host, int(port)), timeout=10) as s:
            s.sendall((json.dumps(msg) + "\n").encode())
            return s.makefile().readline()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Serve:
    def __init__(self, home, *args, config=None):
        self.home = home
        os.makedirs(os.path.join(home, "config"), exist_ok=True)
        if config:
            open(os.path.join(home, "config", "config.toml"), "w").write(config)
        self.err = os.path.join(home, "serve.err")
        self.proc = subprocess.Popen([EXE, "serve", "--port", "0", "--toolsets", "all", *args],
                                     env={**os.environ, "SPOCK_TUI_HOME": home, "ADB_EMU": "0"},
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.err, "w"))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("serve exited: " + open(self.err).read())
            try:
                d = self.descriptor
                if d.get("http"):
                    return
            except Exception:
                pass
            time.sleep(0.05)
        raise RuntimeError("serve not up")

    @property
    def descriptor(self):
        return json.load(open(os.path.join(self.home, "run", "endpoint.json")))

    @property
    def url(self):
        return self.descriptor["http"]

    @property
    def token(self):
        return self.descriptor["token"]

    def audit(self):
        p = os.path.join(self.home, "data", "audit", "audit.jsonl")
        if not os.path.exists(p):
            return []
        out = []
        for l in open(p):
            try:
                out.append(json.loads(l))
            except Exception:
                pass
        return out

    def audit_tool(self, tool):
        return [r for r in self.audit() if r.get("tool") == tool]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except Exception:
                self.proc.kill()


class Person:
    """Raw attach client; a reader thread queues every message."""

    def __init__(self, serve):
        self.serve = serve
        path = os.path.join(serve.home, "run", "control.sock")
        deadline = time.monotonic() + 10
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.f = self.s.makefile("r", encoding="utf-8")
        self.q = queue.Queue()
        self.all = []
        cred = open(os.path.join(serve.home, "config", "control-credential")).read().strip()
        self.send(type="hello", protocol_version=2, credential=cred, pid=os.getpid(), tty="/dev/pts/x")
        self.welcome = json.loads(self.f.readline())
        assert self.welcome["type"] == "welcome", self.welcome
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.f:
            try:
                m = json.loads(line)
            except Exception:
                continue
            self.all.append(m)
            self.q.put(m)

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
            if m["type"] == kind and all(m.get(k) == v if k != "ask" else True for k, v in match.items()):
                return m

    def ask(self, timeout=15, tool=None):
        while True:
            m = self.until("confirm_asked", timeout)
            if m is None:
                return None
            if tool is None or m["ask"]["tool"] == tool:
                return m["ask"]

    def approve(self, cid, wait=0.8):
        self.send(type="displayed", call_id=cid)
        time.sleep(wait)
        self.send(type="decide", call_id=cid, approve=True)

    def deny(self, cid):
        self.send(type="decide", call_id=cid, approve=False)

    def close(self):
        try:
            self.send(type="detach")
            self.s.close()
        except Exception:
            pass


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


class Http:
    """A 2025-era session client over raw HTTP (sync), one call at a time per thread."""

    def __init__(self, serve, name, version="1.0", proto="2025-06-18", url=None, token=None, sid=None):
        self.serve = serve
        self.url = url or serve.url
        self.name = name
        self.proto = proto
        self.h = {"Authorization": f"Bearer {token or serve.token}", "Accept": "application/json, text/event-stream",
                  "Content-Type": "application/json"}
        self.id = 1
        self.lock = threading.Lock()
        if sid:
            self.sid = sid
            self.h |= {"Mcp-Session-Id": sid, "MCP-Protocol-Version": proto}
            return
        r = httpx.post(self.url, headers=self.h, timeout=30, json={"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": proto, "capabilities": {}, "clientInfo": {"name": name, "version": version}}})
        assert r.status_code == 200, r.text
        self.sid = r.headers.get("mcp-session-id")
        self.h |= {"Mcp-Session-Id": self.sid, "MCP-Protocol-Version": proto}
        httpx.post(self.url, headers=self.h, timeout=30, json={"jsonrpc": "2.0", "method": "notifications/initialized"})

    def rpc(self, method, params=None, timeout=120):
        with self.lock:
            self.id += 1
            i = self.id
        r = httpx.post(self.url, headers=self.h, timeout=timeout, json={"jsonrpc": "2.0", "id": i, "method": method, "params": params or {}})
        return parse_body(r)

    def call(self, name, args=None, timeout=120):
        m = self.rpc("tools/call", {"name": name, "arguments": args or {}}, timeout)
        if m is None or "result" not in m:
            return True, m
        res = m["result"]
        sc = res.get("structuredContent")
        if sc is None:
            sc = {"text": " ".join(c.get("text", "") for c in res.get("content", []))}
        return bool(res.get("isError")), sc

    def delete(self):
        return httpx.delete(self.url, headers=self.h, timeout=30).status_code


def bg(fn, *a, **kw):
    """Run fn in a thread; returns a holder dict with 'r' once done."""
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


class Lab:
    """sim with N adbd devices (demo scenario), one private adb server, serve."""

    def __init__(self, n=1, names=None, serve_args=(), config=None, extra_adb=0, sim_args=()):
        self.tmp = tempfile.mkdtemp(prefix="devatk-")
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)
        self.parts = []
        args = []
        for _ in range(n):
            args += ["--adbd", "127.0.0.1:0"]
        for _ in range(n):
            args += ["--device", DEMO]
        args += list(sim_args)
        self.sim = Sim(self.tmp, "a", *args)
        self.parts.append(self.sim)
        self.adbd = [d["addr"] for d in self.sim.info["adbd"]]
        self.simserial = {d["addr"]: d["serial"] for d in self.sim.info["adbd"]}
        self.adbs = [AdbServer(self.tmp, "a")]
        self.parts.append(self.adbs[0])
        for i in range(extra_adb):
            a = AdbServer(self.tmp, f"x{i}")
            self.adbs.append(a)
            self.parts.append(a)
        self.adb = self.adbs[0]
        for d in self.adbd:
            self.adb.connect(d)
        for name in names or []:
            self.adb.connect(name)
        sargs = []
        for a in self.adbs:
            sargs += ["--adb", a.endpoint]
        self.serve = Serve(self.home, *sargs, *serve_args, config=config)
        self.parts.append(self.serve)

    def close(self):
        for p in reversed(self.parts):
            try:
                p.stop()
            except Exception as e:
                log("cleanup", e)


class Stateless:
    """MCP 2026-07-28 requests: each POST stands alone, identity in _meta."""

    def __init__(self, serve, name, version="3.0", extra_headers=None, caps=None):
        self.serve, self.name, self.version = serve, name, version
        self.h = {"Authorization": f"Bearer {serve.token}", "Accept": "application/json, text/event-stream",
                  "Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28"}
        self.h |= extra_headers or {}
        self.caps = caps or {}
        self.id = 100

    def rpc(self, method, params=None, name=None, timeout=120, meta_extra=None):
        self.id += 1
        p = dict(params or {})
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": self.name, "version": self.version},
                "io.modelcontextprotocol/clientCapabilities": self.caps}
        meta |= meta_extra or {}
        p["_meta"] = meta
        h = dict(self.h) | {"Mcp-Method": method}
        if name:
            h["Mcp-Name"] = name
        r = httpx.post(self.serve.url, headers=h, timeout=timeout, json={"jsonrpc": "2.0", "id": self.id, "method": method, "params": p})
        return parse_body(r)

    def call(self, tool, args=None, timeout=120, extra=None):
        params = {"name": tool, "arguments": args or {}}
        params |= extra or {}
        m = self.rpc("tools/call", params, name=tool, timeout=timeout)
        if m is None or "result" not in m:
            return True, m
        res = m["result"]
        sc = res.get("structuredContent")
        if sc is None:
            sc = {"text": " ".join(c.get("text", "") for c in res.get("content", []) if isinstance(c, dict)), "raw": res}
        return bool(res.get("isError")), sc
