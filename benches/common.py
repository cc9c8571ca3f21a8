"""Shared pieces of the Python benchmarks: the release binary, the virtual devices behind a
private real `adb` server and a headless spock-tui (both borrowed from the end-to-end test
fixtures so the benchmarks measure exactly what the tests prove works), percentiles, and the
machine description every report carries.

Every loop in the benchmarks is bounded in count and in time; all traffic stays on 127.0.0.1.
"""
import argparse
import asyncio
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def release_bin() -> str:
    """The binary under test: $SPOCK_TUI_BIN, else the release build in $CARGO_TARGET_DIR or target/."""
    if os.environ.get("SPOCK_TUI_BIN"):
        return os.environ["SPOCK_TUI_BIN"]
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    exe = target / "release" / "spock-tui"
    if not exe.exists():
        sys.exit(f"{exe} missing: run `cargo build --release` first (or set SPOCK_TUI_BIN)")
    return str(exe)


EXE = release_bin()
os.environ["SPOCK_TUI_BIN"] = EXE
sys.path.insert(0, str(ROOT / "tests" / "python"))
import conftest  # noqa: E402  (the test fixtures: RealAdb, start_instance)

conftest.EXE = EXE
RealAdb = conftest.RealAdb
start_instance = conftest.start_instance
DEMO = str(ROOT / "assets" / "demo" / "demo.toml")


def pct(xs, p):
    """Nearest-rank percentile of a non-empty list (p in 0..100)."""
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return s[k]


def summary_ms(seconds):
    ms = [x * 1000 for x in seconds]
    return {
        "n": len(ms),
        "median": statistics.median(ms),
        "p95": pct(ms, 95),
        "p99": pct(ms, 99),
        "min": min(ms),
        "max": max(ms),
    }


def machine() -> dict:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    free = subprocess.run(["free", "-h"], capture_output=True, text=True).stdout.strip()
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "kernel": platform.release(),
        "free_h": free,
        "loadavg": open("/proc/loadavg").read().split()[:3],
        "binary": EXE,
    }


def sim_stats(adb, reset=False) -> dict:
    """The virtual device's command meter (`{"stats":true}` on its control port): commands by
    kind, device time charged and at the profile's medians; `reset` zeroes it after reading."""
    sim = adb.sim_serials()[0]
    return json.loads(adb.fault(sim, stats=True, reset=reset))["stats"][sim]


def on_demo(run):
    """`run(adb, inst)` (a coroutine function) against a headless spock-tui on the demo device
    behind a private real `adb` server; both are stopped afterwards. Returns what `run` returns."""
    with tempfile.TemporaryDirectory() as td:
        tmp = pathlib.Path(td)
        adb = RealAdb(tmp, [DEMO])
        inst = start_instance(tmp, "--adb", adb.endpoint())
        try:
            return asyncio.run(run(adb, inst))
        finally:
            inst.stop()
            adb.close()


async def time_call(client, adb, tool: str, args: dict, rounds: int, before=None) -> dict:
    """`tool(args)` `rounds` times, each after `before(client)` (when given) and a reset of the
    device's meter: wall time at the client, device time and commands by kind (medians)."""
    rows = []
    for _ in range(rounds):
        if before is not None:
            await before(client)
        sim_stats(adb, reset=True)
        t = time.perf_counter()
        res = await client.call_tool(tool, args)
        wall = (time.perf_counter() - t) * 1000
        assert not res.is_error, res
        dev = sim_stats(adb)
        rows.append({"wall_ms": wall, "device_ms": dev["total_device_ms"], "by_command": dev["commands"]})
    return {
        "wall_ms_median": statistics.median(r["wall_ms"] for r in rows),
        "device_ms_median": statistics.median(r["device_ms"] for r in rows),
        "commands": rows[-1]["by_command"],
        "rounds": rows,
    }


def demo_bench(name: str, run, rounds: int) -> None:
    """The whole of a per-call bench on the demo device: `--rounds` (default `rounds`), then
    `run(args, adb, inst)` through [`on_demo`], its result written as `name`.json."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=rounds)
    args = ap.parse_args()
    args.rounds = max(1, min(args.rounds, 50))
    out = on_demo(lambda adb, inst: run(args, adb, inst))
    profile = os.environ.get("SPOCK_SIM_LATENCY", "instant")
    print("wrote", write_json(name, {"profile": profile, "rounds": args.rounds, "calls": out}))


def write_json(name: str, data: dict) -> pathlib.Path:
    out = pathlib.Path(os.environ.get("BENCH_OUT", "/tmp/spock-bench"))
    out.mkdir(parents=True, exist_ok=True)
    p = out / f"{name}.json"
    p.write_text(json.dumps({"machine": machine(), **data}, indent=2))
    return p


class Deadline:
    """One wall-clock bound for a whole benchmark, on top of every loop's own count bound."""

    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds

    def left(self) -> bool:
        return time.monotonic() < self.end


def stateless_call(tool: str, args: dict, rid: int = 1) -> bytes:
    """The JSON body of a 2026-07-28 stateless `tools/call`, as the Python MCP SDK sends it in
    mode="auto" (no initialize; the client names itself in `_meta` on every request)."""
    return json.dumps({
        "jsonrpc": "2.0",
        "id": rid,
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": args,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "spock-bench", "version": "0.1.0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }, separators=(",", ":")).encode()


def stateless_headers(host: str, token: str, tool: str, length: int) -> bytes:
    return (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
        "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
        f"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


class MiniHttp:
    """A minimal keep-alive HTTP/1.1 client on one socket: the least client-side cost per call,
    so what is timed is the server. Answers must carry Content-Length (spock-tui answers JSON)."""

    def __init__(self, url: str, token: str):
        import socket

        hostport = url.split("//", 1)[1].split("/", 1)[0]
        host, port = hostport.rsplit(":", 1)
        self.hostport = hostport
        self.token = token
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def call(self, tool: str, args: dict, rid: int = 1) -> dict:
        body = stateless_call(tool, args, rid)
        self.sock.sendall(stateless_headers(self.hostport, self.token, tool, len(body)) + body)
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        length = None
        for line in lines[1:]:
            k, _, v = line.partition(":")
            if k.strip().lower() == "content-length":
                length = int(v.strip())
        if length is None:
            raise RuntimeError(f"no Content-Length in answer: {head[:300]!r}")
        while len(self.buf) < length:
            self._fill()
        payload, self.buf = self.buf[:length], self.buf[length:]
        if status != 200:
            raise RuntimeError(f"HTTP {status}: {payload[:300]!r}")
        return json.loads(payload)

    def _fill(self):
        d = self.sock.recv(1 << 20)
        if not d:
            raise RuntimeError("server closed the connection")
        self.buf += d

    def close(self):
        self.sock.close()
