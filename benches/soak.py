#!/usr/bin/env python3
"""Soak: N real MCP clients (the Python SDK) making mixed calls against one `spock-tui serve
--demo` for a fixed time, spread over every transport (streamable HTTP in both eras, legacy
SSE, the stdio relay). Pass/fail:

- zero protocol errors (an exception from the SDK: a broken stream, a JSON-RPC error, a call
  that did not come back within its timeout) and zero unexpected tool errors;
- RSS flat: the server's peak RSS over the last 20% of the run is at most
  `rss_at_warm * 1.10 + 8 MiB`, where `rss_at_warm` is the peak over the first window after the
  warm-up (minute 2 for a 10-minute run; 20% of the run for shorter ones).

    python3 benches/soak.py --minutes 10 --clients 64      # the full soak (RELIABILITY.md)
    python3 benches/soak.py --seconds 30 --clients 16      # a quick look

Prints one JSON summary line; exit status 0 only when both criteria hold. Loopback only.
"""
import argparse
import asyncio
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_EXE = os.environ.get("SPOCK_TUI_BIN") or str(
    pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug" / "spock-tui"
)
CALL_TIMEOUT = 30.0
RSS_FACTOR = 1.10
RSS_SLACK_KIB = 8 * 1024

# (tool, arguments, expect_error): read-only and host tools succeed; the destructive call is
# denied (headless serve has nobody to approve) and must come back as a tool error.
MIX = [
    ("spock_get_status", {}, False),
    ("android_list_devices", {}, False),
    ("android_get_battery_info", {}, False),
    ("android_get_ui_tree", {}, False),
    ("android_get_current_activity", {}, False),
    ("android_uninstall_app", {"packageName": "com.example.notes"}, True),
]
TRANSPORTS = ["http-auto", "http-legacy", "sse", "stdio"]


def start_server(
    exe: str, home: pathlib.Path, max_sessions: int, history: int | None = None
) -> tuple[subprocess.Popen, dict]:
    (home / "config").mkdir(parents=True, exist_ok=True)
    cfg = f"[server]\nmax_sessions = {max_sessions}\n"
    if history is not None:
        cfg += f"[history]\nsize = {history}\n"
    (home / "config" / "config.toml").write_text(cfg)
    err = open(home / "serve.err", "w")
    proc = subprocess.Popen(
        # Every toolset listed: the clients call tools beyond the core set.
        [exe, "serve", "--demo", "--port", "0", "--toolsets", "all"],
        env={**os.environ, "SPOCK_TUI_HOME": str(home)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=err,
    )
    desc = home / "run" / "endpoint.json"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"serve exited {proc.returncode}: {(home / 'serve.err').read_text()}")
        try:
            d = json.loads(desc.read_text())
            if d.get("http") and (d.get("unix") or d.get("tcp")):
                return proc, d
        except (FileNotFoundError, json.JSONDecodeError):
            pass
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("serve did not come up")


def rss_kib(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Tally:
    def __init__(self):
        self.calls = 0
        self.protocol_errors: list[str] = []
        self.unexpected_tool_errors: list[str] = []
        self.by_transport: dict[str, int] = {t: 0 for t in TRANSPORTS}


def client_context(kind: str, desc: dict, home: pathlib.Path, exe: str):
    from mcp import Client, ClientSession
    from mcp.client.sse import sse_client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    auth = {"Authorization": f"Bearer {desc['token']}"}
    if kind in ("http-auto", "http-legacy"):
        http = create_mcp_http_client(headers=auth)
        return Client(streamable_http_client(desc["http"], http_client=http), mode=kind.split("-")[1])
    if kind == "stdio":
        params = StdioServerParameters(
            command=exe,
            args=["relay", str(home / "run" / "endpoint.json")],
            env={**os.environ, "SPOCK_TUI_HOME": str(home)},
        )
        return Client(params, mode="legacy")

    class SseClient:
        """The legacy SSE transport behind the same `call_tool` surface."""

        async def __aenter__(self):
            self._sse = sse_client(desc["http"].rsplit("/mcp", 1)[0] + "/sse", headers=auth)
            r, w = await self._sse.__aenter__()
            self._session = ClientSession(r, w)
            await self._session.__aenter__()
            await self._session.initialize()
            return self._session

        async def __aexit__(self, *exc):
            await self._session.__aexit__(*exc)
            await self._sse.__aexit__(*exc)

    return SseClient()


async def client_loop(i: int, kind: str, desc, home, exe, stop_at: float, tally: Tally):
    try:
        async with client_context(kind, desc, home, exe) as c:
            n = i
            while time.monotonic() < stop_at:
                tool, args, expect_error = MIX[n % len(MIX)]
                n += 1
                try:
                    res = await asyncio.wait_for(c.call_tool(tool, args), CALL_TIMEOUT)
                except Exception as e:  # noqa: BLE001 — every failure is counted and reported
                    tally.protocol_errors.append(f"{kind} {tool}: {type(e).__name__}: {e}"[:300])
                    continue
                tally.calls += 1
                tally.by_transport[kind] += 1
                if bool(res.is_error) != expect_error:
                    tally.unexpected_tool_errors.append(f"{kind} {tool}: {str(res.structured_content)[:200]}")
    except Exception as e:  # noqa: BLE001
        tally.protocol_errors.append(f"{kind} client {i} session: {type(e).__name__}: {e}"[:300])


async def sample_rss(pid: int, start: float, stop_at: float, samples: list):
    while time.monotonic() < stop_at:
        samples.append((time.monotonic() - start, rss_kib(pid)))
        await asyncio.sleep(2)
    samples.append((time.monotonic() - start, rss_kib(pid)))


async def soak(exe: str, seconds: float, clients: int, history: int | None = None) -> dict:
    home = pathlib.Path(tempfile.mkdtemp(prefix="spock-soak-"))
    proc, desc = start_server(exe, home, max_sessions=max(16, clients), history=history)
    try:
        start = time.monotonic()
        stop_at = start + seconds
        tally = Tally()
        samples: list = []
        tasks = [
            client_loop(i, TRANSPORTS[i % len(TRANSPORTS)], desc, home, exe, stop_at, tally) for i in range(clients)
        ]
        await asyncio.gather(sample_rss(proc.pid, start, stop_at, samples), *tasks)
        alive = proc.poll() is None
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    # Warm window: minute 2 of a long run, the second fifth of a short one.
    if seconds >= 600:
        warm = (60.0, 120.0)
    else:
        warm = (seconds * 0.2, seconds * 0.4)
    warm_rss = max((r for t, r in samples if warm[0] <= t <= warm[1]), default=0)
    tail_rss = max((r for t, r in samples if t >= seconds * 0.8), default=0)
    bound = int(warm_rss * RSS_FACTOR + RSS_SLACK_KIB)
    summary = {
        "seconds": seconds,
        "clients": clients,
        "calls": tally.calls,
        "calls_per_second": round(tally.calls / seconds, 1),
        "by_transport": tally.by_transport,
        "protocol_errors": len(tally.protocol_errors),
        "unexpected_tool_errors": len(tally.unexpected_tool_errors),
        "first_errors": (tally.protocol_errors + tally.unexpected_tool_errors)[:5],
        "rss_kib_first": samples[0][1] if samples else 0,
        "rss_kib_warm_peak": warm_rss,
        "rss_kib_tail_peak": tail_rss,
        "rss_kib_bound": bound,
        "rss_flat": tail_rss <= bound,
        "server_alive_at_end": alive,
        # every ~20 s: (second, RSS KiB)
        "rss_series": [(round(t), r) for t, r in samples[:: max(1, len(samples) // 30)]],
        "machine": f"{os.uname().sysname} {os.uname().release} {os.uname().machine}, {os.cpu_count()} cpus",
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    summary["ok"] = (
        summary["protocol_errors"] == 0
        and summary["unexpected_tool_errors"] == 0
        and summary["rss_flat"]
        and alive
        and tally.calls > 0
        and all(v > 0 for k, v in tally.by_transport.items() if clients >= len(TRANSPORTS))
    )
    return summary


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--exe", default=DEFAULT_EXE)
    ap.add_argument(
        "--history",
        type=int,
        default=None,
        help="call-history size (default: the product's 10,000); the in-memory history fills "
        "first, so a short run needs a small one for RSS to be judged after it is full",
    )
    a = ap.parse_args()
    seconds = a.seconds if a.seconds is not None else (a.minutes if a.minutes is not None else 10) * 60
    summary = asyncio.run(soak(a.exe, seconds, a.clients, a.history))
    print(json.dumps(summary))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
