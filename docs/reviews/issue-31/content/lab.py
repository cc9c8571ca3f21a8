"""Shared harness for the content-binding attacks (black-box: release binary only).

A private SPOCK_TUI_HOME, a `spock-tui sim` virtual phone behind a private real adb server,
`spock-tui serve --adb` headless, a raw attach client playing the honest person, and MCP
agents through `relay` (Python MCP SDK)."""
import asyncio
import contextlib
import hashlib
import io
import json
import os
import pathlib
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

EXE = os.environ.get("SPOCK_TUI_BIN", "/work/attack/spock-tui")
DEMO = "/work/main/assets/demo/demo.toml"
ARMING = 0.8


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- APK crafting
def axml(attrs_spec, strings_extra=(), resmap=None, elem_name="manifest"):
    """Android binary XML with one element. attrs_spec: list of (name, raw_str_or_None,
    type, value) where value for type 0x03 is a string; for 0x10 an int.
    resmap: list of resource ids for the first len(resmap) strings."""
    strings = [elem_name]
    def sidx(s):
        if s not in strings:
            strings.append(s)
        return strings.index(s)
    # names first (so resource map lines up with them)
    names = [sidx(a[0]) for a in attrs_spec]
    rows = []
    for (name, raw, ty, val), n in zip(attrs_spec, names):
        r = 0xFFFFFFFF if raw is None else sidx(raw)
        if ty == 0x03:
            v = sidx(val)
        else:
            v = val
        rows.append((n, r, ty, v))
    for s in strings_extra:
        sidx(s)
    data, offsets = b"", []
    for s in strings:
        offsets.append(len(data))
        units = s.encode("utf-16-le")
        data += struct.pack("<H", len(units) // 2) + units + b"\0\0"
    data += b"\0" * (-len(data) % 4)
    start = 28 + 4 * len(strings)
    pool = struct.pack("<IIIIIII", 0x0001 | (28 << 16), start + len(data), len(strings), 0, 0, start, 0)
    pool += b"".join(struct.pack("<I", o) for o in offsets) + data
    rm = b""
    if resmap:
        rm = struct.pack("<HHI", 0x0180, 8, 8 + 4 * len(resmap)) + b"".join(struct.pack("<I", x) for x in resmap)
    none = 0xFFFFFFFF
    attrs = b"".join(struct.pack("<IIIHBBI", none, n, r, 8, 0, ty, v) for n, r, ty, v in rows)
    el = struct.pack("<IIIIII", 0x0102 | (16 << 16), 36 + len(attrs), 1, none, sidx(elem_name) if False else 0, 0)
    # header(16)= type/hsize/size, line, comment ; then ns, name
    el = struct.pack("<HHI", 0x0102, 16, 36 + len(attrs)) + struct.pack("<II", 1, none) + struct.pack("<II", none, 0)
    el += struct.pack("<HHHHHH", 20, 20, len(rows), 0, 0, 0) + attrs
    end = struct.pack("<HHI", 0x0103, 16, 24) + struct.pack("<II", 1, none) + struct.pack("<II", none, 0)
    body = pool + rm + el + end
    return struct.pack("<II", 0x0003 | (8 << 16), 8 + len(body)) + body


def manifest_xml(package, code, name):
    return axml([("package", package, 0x03, package), ("versionCode", None, 0x10, code),
                 ("versionName", name, 0x03, name)])


def apk(package, code, name, filler=b""):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("AndroidManifest.xml", manifest_xml(package, code, name))
        z.writestr("classes.dex", b"dex\n035\0" + filler)
    return buf.getvalue()


def sha(b):
    return hashlib.sha256(b).hexdigest()


# ---------------------------------------------------------------- processes
class Lab:
    def __init__(self, config=None, extra=(), scenarios=(DEMO,), project=None):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="content-"))
        self.home = self.tmp / "home"
        self.home.mkdir(mode=0o700)
        if config:
            (self.home / "config").mkdir(mode=0o700)
            (self.home / "config" / "config.toml").write_text(config)
        self.port = free_port()
        self.env = {**os.environ, "ADB_EMU": "0"}
        args = [EXE, "sim"]
        for s in scenarios:
            args += ["--adbd", "127.0.0.1:0", "--device", s]
        self.sim = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(self.tmp / "sim.err", "w"), text=True)
        self.info = json.loads(self.sim.stdout.readline())
        self.adb("start-server")
        self.serials = []
        for d in self.info["adbd"]:
            self.adb("connect", d["addr"])
            self.serials.append(d["addr"])
        for _ in range(150):
            out = self.adb("devices").stdout
            if all(f"{s}\tdevice" in out for s in self.serials):
                break
            time.sleep(0.1)
        self.project = project
        sargs = [EXE, "serve", "--port", "0", "--toolsets", "all", "--adb", f"127.0.0.1:{self.port}", *extra]
        if project:
            sargs += ["--project", str(project)]
        self.serve = subprocess.Popen(sargs, env={**os.environ, "SPOCK_TUI_HOME": str(self.home)},
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=open(self.tmp / "serve.err", "w"))
        for _ in range(600):
            try:
                d = json.loads((self.home / "run" / "endpoint.json").read_text())
                if d.get("http") and (d.get("unix") or d.get("tcp")):
                    break
            except Exception:
                pass
            if self.serve.poll() is not None:
                raise RuntimeError((self.tmp / "serve.err").read_text())
            time.sleep(0.05)
        self.serial = self.serials[0]

    @property
    def desc(self):
        return json.loads((self.home / "run" / "endpoint.json").read_text())

    def adb(self, *args, timeout=30):
        return subprocess.run(["adb", "-P", str(self.port), *args], env=self.env, capture_output=True, text=True, timeout=timeout)

    def dev_cat(self, path):
        return subprocess.run(["adb", "-P", str(self.port), "-s", self.serial, "exec-out", "cat", path],
                              env=self.env, capture_output=True, timeout=30).stdout

    def dev_sh(self, cmd):
        return self.adb("-s", self.serial, "shell", cmd).stdout

    def installed(self, package):
        out = self.dev_sh(f"pm list packages --show-versioncode {package}")
        for line in out.splitlines():
            n, _, code = line.strip().removeprefix("package:").partition(" versionCode:")
            if n == package:
                return int(code)
        return None

    def pulls(self):
        d = self.home / "data" / "pulls"
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.home / "data", 0o700)
        return d

    def audit(self):
        p = self.home / "data" / "audit" / "audit.jsonl"
        return [json.loads(l) for l in p.read_text().splitlines() if l.strip()] if p.exists() else []

    def audit_for(self, tool):
        return [r for r in self.audit() if r.get("tool") == tool]

    def relay_params(self):
        from mcp.client.stdio import StdioServerParameters
        return StdioServerParameters(command=EXE, args=["relay", str(self.home / "run" / "endpoint.json")],
                                     env={**os.environ, "SPOCK_TUI_HOME": str(self.home)})

    def agent(self, name="agent"):
        from mcp import Client
        from mcp.types import Implementation
        return Client(self.relay_params(), mode="legacy", client_info=Implementation(name=name, version="1.0"))

    def close(self):
        for p in (self.serve,):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill(); p.wait()
        self.adb("kill-server")
        if self.sim.poll() is None:
            self.sim.kill(); self.sim.wait()


class Person:
    """Raw attach client: the honest person."""
    def __init__(self, r, w):
        self.r, self.w = r, w
        self.log = []

    @classmethod
    async def attach(cls, lab):
        r, w = await asyncio.open_unix_connection(str(lab.home / "run" / "control.sock"), limit=16 << 20)
        p = cls(r, w)
        cred = (lab.home / "config" / "control-credential").read_text().strip()
        await p.send(type="hello", protocol_version=2, credential=cred, pid=os.getpid(), tty="/dev/pts/x")
        m = await p.recv()
        assert m["type"] == "welcome", m
        return p

    async def send(self, **m):
        self.w.write((json.dumps(m) + "\n").encode()); await self.w.drain()

    async def recv(self, timeout=15.0):
        line = await asyncio.wait_for(self.r.readline(), timeout)
        m = json.loads(line) if line else None
        if m:
            self.log.append(m)
        return m

    async def until(self, kind, timeout=20.0, **match):
        deadline = time.monotonic() + timeout
        while True:
            m = await self.recv(max(0.1, deadline - time.monotonic()))
            assert m is not None, f"closed waiting for {kind}"
            if m["type"] == kind and all(m.get(k) == v for k, v in match.items()):
                return m

    async def approve(self, cid):
        await self.send(type="displayed", call_id=cid)
        await asyncio.sleep(ARMING)
        await self.send(type="decide", call_id=cid, approve=True)

    def close(self):
        self.w.close()


async def call(client, name, args=None):
    res = await client.call_tool(name, args or {})
    sc = res.structured_content
    if sc is None:
        sc = {"text": " ".join(getattr(c, "text", "") for c in res.content)}
    return bool(res.is_error), sc


def report(name, verdict, **kv):
    print(f"=== {name}: {verdict}")
    for k, v in kv.items():
        print(f"  {k}: {v}")
