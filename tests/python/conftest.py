"""Shared fixtures: a real spock-tui process (headless `serve`) in a private SPOCK_TUI_HOME,
reached by the real Python MCP SDK over every transport."""
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The binary cargo built: $SPOCK_TUI_BIN, else the debug build in $CARGO_TARGET_DIR or target/.
EXE = os.environ.get(
    "SPOCK_TUI_BIN",
    str(pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target") / "debug" / "spock-tui"),
)


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Instance:
    def __init__(self, home: pathlib.Path, proc: subprocess.Popen, stderr_path: pathlib.Path):
        self.home = home
        self.proc = proc
        self.stderr_path = stderr_path

    @property
    def descriptor_path(self) -> pathlib.Path:
        return self.home / "run" / "endpoint.json"

    @property
    def descriptor(self) -> dict:
        return json.loads(self.descriptor_path.read_text())

    @property
    def url(self) -> str:
        return self.descriptor["http"]

    @property
    def base(self) -> str:
        return self.url.rsplit("/mcp", 1)[0]

    @property
    def token(self) -> str:
        return self.descriptor["token"]

    def env(self) -> dict:
        return {**os.environ, "SPOCK_TUI_HOME": str(self.home)}

    def relay_params(self):
        from mcp.client.stdio import StdioServerParameters

        return StdioServerParameters(command=EXE, args=["relay", str(self.descriptor_path)], env=self.env())

    def http_client(self, token: str | None = None):
        from mcp.shared._httpx_utils import create_mcp_http_client

        return create_mcp_http_client(headers={"Authorization": f"Bearer {token or self.token}"})

    def run(self, *args, **kw) -> subprocess.CompletedProcess:
        return subprocess.run([EXE, *args], env=self.env(), capture_output=True, text=True, timeout=60, **kw)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


def start_instance(tmp_path: pathlib.Path, *args: str, config: str | None = None, home: pathlib.Path | None = None,
                   toolsets: str | None = "all", wrap: tuple[str, ...] = (), exe: str | None = None) -> Instance:
    """`serve --port 0 ARGS`, run through `wrap` when given (`("nohup",)`), with `exe` instead of
    the binary under test when given (a copy another user can execute). Every toolset is listed
    unless `toolsets` says otherwise (None: the default, core only): most tests exercise tools
    beyond the core set; test_toolsets.py does not."""
    home = home or (tmp_path / "home")
    if toolsets is not None:
        args = ("--toolsets", toolsets, *args)
    if config is not None:
        (home / "config").mkdir(parents=True, exist_ok=True)
        (home / "config" / "config.toml").write_text(config)
    desc = home / "run" / "endpoint.json"
    if desc.exists():
        desc.unlink()
    err = tmp_path / f"serve-{time.monotonic_ns()}.err"
    proc = subprocess.Popen(
        [*wrap, exe or EXE, "serve", "--port", "0", *args],
        env={**os.environ, "SPOCK_TUI_HOME": str(home)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=open(err, "w"),
    )
    inst = Instance(home, proc, err)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"spock-tui serve exited {proc.returncode}: {inst.stderr()}")
        try:
            d = inst.descriptor
            if d.get("http") and (d.get("unix") or d.get("tcp")):
                return inst
        except (FileNotFoundError, json.JSONDecodeError):
            pass
        time.sleep(0.05)
    inst.stop()
    raise RuntimeError(f"spock-tui serve did not come up: {inst.stderr()}")


@pytest.fixture
def instance(tmp_path):
    inst = start_instance(tmp_path)
    yield inst
    inst.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def have_adb() -> bool:
    return shutil.which("adb") is not None


class RealAdb:
    """Virtual devices behind adbd, reached through a private real `adb` server (Debian's)."""

    def __init__(self, tmp_path, scenarios=(), socket_path=None, sim_args=()):
        """`socket_path`: the server on that filesystem socket (`adb -L localfilesystem:…`),
        with no TCP port, instead of a private port. `sim_args`: more `spock-tui sim` flags
        (`--replay DIR`)."""
        self.tmp = tmp_path
        self.socket_path = socket_path
        self.env = {k: v for k, v in os.environ.items() if k != "ADB_SERVER_SOCKET"}
        self.env["ADB_EMU"] = "0"
        args = [EXE, "sim"]
        n = max(1, len(scenarios))
        for _ in range(n):
            args += ["--adbd", "127.0.0.1:0"]
        for s in scenarios:
            args += ["--device", str(s)]
        args += [str(a) for a in sim_args]
        self.sim = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(tmp_path / "sim.err", "w"), text=True)
        line = self.sim.stdout.readline()
        if not line:
            raise RuntimeError("spock-tui sim printed nothing: " + (tmp_path / "sim.err").read_text())
        self.info = json.loads(line)
        self.control = self.info["control"]
        # The port is chosen after the sim bound its own (one of them could have taken a port
        # chosen before), and chosen again if something took it before the server did.
        for _ in range(1 if socket_path else 3):
            self.port = free_port()
            started = self.adb("start-server", check=False)
            if started.returncode == 0:
                break
        else:
            raise RuntimeError(f"adb start-server failed: {started.stdout}{started.stderr}")
        self.serials = []
        for d in self.info["adbd"]:
            self.adb("connect", d["addr"])
            self.serials.append(d["addr"])
        self.wait_online()

    def adb(self, *args, timeout=30, check=True):
        r = subprocess.run(["adb", *self.named(), *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError(f"adb {' '.join(args)} failed: {r.stdout}{r.stderr}")
        return r

    def wait_online(self, deadline_s=15):
        deadline = time.monotonic() + deadline_s
        while time.monotonic() < deadline:
            out = self.adb("devices").stdout
            if all(f"{s}\tdevice" in out for s in self.serials):
                return
            time.sleep(0.1)
        raise RuntimeError("devices did not come online: " + self.adb("devices").stdout)

    def fault(self, serial_sim: str, **cmd):
        host, port = self.control.rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall((json.dumps({"serial": serial_sim, **cmd}) + "\n").encode())
            return s.makefile().readline()

    def sim_serials(self):
        return [d["serial"] for d in self.info["adbd"]]

    def named(self) -> list:
        return ["-L", f"localfilesystem:{self.socket_path}"] if self.socket_path else ["-P", str(self.port)]

    def endpoint(self) -> str:
        return f"localfilesystem:{self.socket_path}" if self.socket_path else f"127.0.0.1:{self.port}"

    def close(self):
        subprocess.run(["adb", *self.named(), "kill-server"], env=self.env, capture_output=True, timeout=30)
        if self.sim.poll() is None:
            self.sim.kill()
            self.sim.wait()


@pytest.fixture
def real_adb(tmp_path):
    if not have_adb():
        if os.environ.get("CI"):
            pytest.fail("adb is required in CI")
        pytest.skip("no adb binary")
    r = RealAdb(tmp_path)
    yield r
    r.close()


async def call(client, name, args=None):
    """Call a tool; return (is_error, structured content)."""
    res = await client.call_tool(name, args or {})
    return bool(res.is_error), res.structured_content


# An `initialize` request as a raw client writes it (the 2025-06-18 session era).
RAW_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
