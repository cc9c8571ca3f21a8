#!/usr/bin/env python3
"""Transport abuse, the long run: for a fixed time, threads hammer one `spock-tui serve --demo`
with connect-disconnects (HTTP and the stdio socket), slow-drip headers, silent sockets, hostile
tokens (wrong, prefix, 1 MB) and oversized bodies, while one real MCP client (the Python SDK over
streamable HTTP) keeps calling. Pass: the client saw no error and no call slower than 5 s, every
abusive request was answered as designed (401 / 413 / 431 / closed by the 10 s header-read
timeout), and the server is alive at the end. The CI-sized checks are
tests/python/test_reliability.py.

    python3 benches/abuse.py --seconds 120
"""
import argparse
import asyncio
import json
import os
import pathlib
import signal
import socket
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from soak import DEFAULT_EXE, rss_kib, start_server  # noqa: E402


def status_of(resp: bytes) -> int:
    parts = resp.split(b"\r\n", 1)[0].split(b" ")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def exchange(addr, data: bytes, timeout=20.0) -> bytes:
    with socket.create_connection(addr, timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:
            pass
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except OSError:
            pass
        return out


class Counts:
    def __init__(self):
        self.lock = threading.Lock()
        self.c: dict[str, int] = {}
        self.wrong: list[str] = []

    def add(self, key, ok=True, why=""):
        with self.lock:
            self.c[key] = self.c.get(key, 0) + 1
            if not ok:
                self.wrong.append(f"{key}: {why}"[:200])


def post(token_header: str, body: bytes) -> bytes:
    return (
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n{token_header}Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def abusers(addr, unix, token, stop_at, counts: Counts):
    def churn():
        while time.monotonic() < stop_at:
            with socket.create_connection(addr, timeout=5):
                pass
            u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            u.settimeout(5)
            u.connect(unix)
            u.close()
            counts.add("connect-disconnect")

    def slow():
        while time.monotonic() < stop_at:
            t0 = time.monotonic()
            with socket.create_connection(addr, timeout=1) as s:
                s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                closed = False
                for _ in range(30):
                    try:
                        s.sendall(b"a")
                        if s.recv(1) == b"":
                            closed = True
                            break
                    except socket.timeout:
                        continue
                    except OSError:
                        closed = True
                        break
            took = time.monotonic() - t0
            counts.add("slowloris", closed and took < 16, f"closed={closed} after {took:.1f}s")

    def hostile():
        cases = [
            ("", 401),
            ("Authorization: Bearer wrong\r\n", 401),
            (f"Authorization: Bearer {token[:32]}\r\n", 401),
            (f"Authorization: Bearer {token}x\r\n", 401),
            ("Authorization: Bearer " + "z" * (1 << 20) + "\r\n", (401, 431)),
        ]
        i = 0
        while time.monotonic() < stop_at:
            hdr, want = cases[i % len(cases)]
            st = status_of(exchange(addr, post(hdr, b"{}")))
            ok = st in want if isinstance(want, tuple) else st == want
            counts.add("hostile-token", ok, f"{hdr[:40]!r} -> {st}")
            if i % 10 == 0:
                big = b'{"pad":"' + b"x" * (5 << 20) + b'"}'
                st = status_of(exchange(addr, post(f"Authorization: Bearer {token}\r\n", big)))
                counts.add("oversized-body", st == 413, f"-> {st}")
            i += 1

    threads = [threading.Thread(target=churn) for _ in range(2)]
    threads += [threading.Thread(target=slow) for _ in range(16)]
    threads += [threading.Thread(target=hostile) for _ in range(2)]
    for t in threads:
        t.start()
    return threads


async def bystander(desc, stop_at, out: dict):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {desc['token']}"})
    lat = []
    async with Client(streamable_http_client(desc["http"], http_client=http), mode="legacy") as c:
        while time.monotonic() < stop_at:
            t0 = time.monotonic()
            try:
                res = await asyncio.wait_for(c.call_tool("android_get_battery_info", {}), 10)
                if res.is_error:
                    out["errors"].append(str(res.structured_content)[:200])
            except Exception as e:  # noqa: BLE001
                out["errors"].append(f"{type(e).__name__}: {e}"[:200])
            lat.append(time.monotonic() - t0)
            await asyncio.sleep(0.02)
    lat.sort()
    out["calls"] = len(lat)
    out["p50_ms"] = round(lat[len(lat) // 2] * 1000, 1) if lat else None
    out["p99_ms"] = round(lat[int(len(lat) * 0.99)] * 1000, 1) if lat else None
    out["max_ms"] = round(lat[-1] * 1000, 1) if lat else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--exe", default=DEFAULT_EXE)
    a = ap.parse_args()
    import tempfile

    home = pathlib.Path(tempfile.mkdtemp(prefix="spock-abuse-"))
    proc, desc = start_server(a.exe, home, max_sessions=16)
    try:
        hp = desc["http"].split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        addr = (hp[0], int(hp[1]))
        stop_at = time.monotonic() + a.seconds
        counts = Counts()
        rss_start = rss_kib(proc.pid)
        threads = abusers(addr, desc["unix"], desc["token"], stop_at, counts)
        client: dict = {"errors": []}
        asyncio.run(bystander(desc, stop_at, client))
        for t in threads:
            t.join(60)
        alive = proc.poll() is None
        rss_end = rss_kib(proc.pid) if alive else 0
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)
    summary = {
        "seconds": a.seconds,
        "abuse": counts.c,
        "answered_wrongly": len(counts.wrong),
        "first_wrong": counts.wrong[:5],
        "client": {k: v for k, v in client.items() if k != "errors"},
        "client_errors": len(client["errors"]),
        "first_client_errors": client["errors"][:5],
        "rss_kib_start": rss_start,
        "rss_kib_end": rss_end,
        "server_alive_at_end": alive,
        "machine": f"{os.uname().sysname} {os.uname().release} {os.uname().machine}, {os.cpu_count()} cpus",
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    summary["ok"] = (
        alive
        and not counts.wrong
        and not client["errors"]
        and (client.get("max_ms") or 1e9) < 5000
    )
    print(json.dumps(summary))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
