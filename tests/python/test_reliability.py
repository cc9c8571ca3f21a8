"""Auth and transport abuse against a real `spock-tui serve`, each answered as designed while a
real client (the Python SDK over streamable HTTP) keeps calling unaffected: hostile tokens
(prefix, suffix, 1 MB header), foreign Origin, wrong Host, oversized bodies, slow-drip headers
(slowloris), idle sockets, a full SSE pool, a full socket pool, 1,000 connect-disconnects.
Loopback only; every loop bounded."""
import asyncio
import json
import socket
import threading
import time

import httpx2
import pytest
from conftest import RAW_INIT as INIT, start_instance
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio

# The server's header-read timeout (src/transport/http.rs HEADER_READ_TIMEOUT).
HEADER_READ_TIMEOUT = 10


def host_port(inst):
    hp = inst.url.split("//", 1)[1].split("/", 1)[0]
    h, p = hp.rsplit(":", 1)
    return h, int(p)


def until_closed(s) -> bytes:
    """Everything the server sends until it closes (or the socket's timeout passes)."""
    got = b""
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            got += c
    except OSError:  # a timeout or a reset ends the read
        pass
    return got


def raw_http(inst, data: bytes, timeout=15.0) -> bytes:
    """Send raw bytes, read until the server closes (or `timeout`)."""
    with socket.create_connection(host_port(inst), timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:
            pass
        return until_closed(s)


def status_of(resp: bytes) -> int:
    line = resp.split(b"\r\n", 1)[0]
    parts = line.split(b" ")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def post_raw(inst, headers: dict, body: bytes) -> bytes:
    head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    head += "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
    for k, v in headers.items():
        head += f"{k}: {v}\r\n"
    head += f"Content-Length: {len(body)}\r\n\r\n"
    return raw_http(inst, head.encode() + body)


class Bystander:
    """A real SDK client calling `spock_get_status` in a loop; records errors and latency."""

    def __init__(self, inst):
        self.inst = inst
        self.calls = 0
        self.errors: list[str] = []
        self.worst = 0.0
        self._stop = asyncio.Event()

    async def run(self):
        try:
            async with Client(
                streamable_http_client(self.inst.url, http_client=self.inst.http_client()), mode="legacy"
            ) as c:
                while not self._stop.is_set():
                    t0 = time.monotonic()
                    try:
                        res = await asyncio.wait_for(c.call_tool("spock_get_status", {}), 10)
                        if res.is_error:
                            self.errors.append(str(res.structured_content)[:200])
                    except Exception as e:  # noqa: BLE001
                        self.errors.append(f"{type(e).__name__}: {e}"[:200])
                    self.worst = max(self.worst, time.monotonic() - t0)
                    self.calls += 1
                    await asyncio.sleep(0.05)
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"session: {type(e).__name__}: {e}"[:200])

    async def during(self, abuse, *args):
        """Run blocking `abuse(*args)` in a thread while the client keeps calling."""
        task = asyncio.create_task(self.run())
        try:
            deadline = time.monotonic() + 20
            while self.calls < 1 and not task.done() and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            result = await asyncio.to_thread(abuse, *args)
            # ... and it still works right after.
            target = self.calls + 3
            while self.calls < target and not task.done() and time.monotonic() < deadline + 60:
                await asyncio.sleep(0.05)
            return result
        finally:
            self._stop.set()
            await asyncio.wait_for(task, 20)
            assert self.calls >= 3, f"the bystander barely ran: {self.calls}"
            assert not self.errors, self.errors[:3]
            assert self.worst < 5.0, f"the bystander waited {self.worst:.1f}s for one call"


async def test_hostile_tokens_and_headers(instance):
    tok = instance.token

    def abuse():
        out = {}
        for name, value in {
            "missing": None,
            "wrong": "wrong",
            "prefix": tok[:32],
            "one short": tok[:-1],
            "suffix": tok + "00",
            "lowercase hex flipped": tok.upper(),
            "basic scheme": None,
            "64 KB": "a" * 65536,
        }.items():
            h = {}
            if name == "basic scheme":
                h["Authorization"] = f"Basic {tok}"
            elif value is not None:
                h["Authorization"] = f"Bearer {value}"
            out[name] = status_of(post_raw(instance, h, json.dumps(INIT).encode()))
        # 1 MB of header: hyper refuses it before any handler runs.
        out["1 MB header"] = status_of(post_raw(instance, {"Authorization": "Bearer " + "b" * (1 << 20)}, b"{}"))
        out["1 MB valid-prefixed"] = status_of(post_raw(instance, {"Authorization": f"Bearer {tok}{'c' * (1 << 20)}"}, b"{}"))
        # The token in the query string is not a credential.
        r = raw_http(
            instance,
            f"POST /mcp?token={tok} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{{}}".encode(),
        )
        out["query string"] = status_of(r)
        return out

    seen = await Bystander(instance).during(abuse)
    for name in ("missing", "wrong", "prefix", "one short", "suffix", "lowercase hex flipped", "basic scheme", "64 KB", "query string"):
        assert seen[name] == 401, (name, seen)
    assert seen["1 MB header"] in (401, 431), seen
    assert seen["1 MB valid-prefixed"] in (401, 431), seen
    assert instance.proc.poll() is None


async def test_foreign_origin_wrong_host_oversized_bodies(instance):
    tok = instance.token
    auth = {"Authorization": f"Bearer {tok}"}

    def abuse():
        out = {}
        out["evil origin"] = status_of(post_raw(instance, {**auth, "Origin": "http://evil.example"}, json.dumps(INIT).encode()))
        out["null origin"] = status_of(post_raw(instance, {**auth, "Origin": "null"}, json.dumps(INIT).encode()))
        out["rebinding origin"] = status_of(
            post_raw(instance, {**auth, "Origin": "http://127.0.0.1.evil.example"}, json.dumps(INIT).encode())
        )
        body = json.dumps(INIT).encode()
        r = raw_http(
            instance,
            (
                "POST /mcp HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\nContent-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\nAuthorization: Bearer {tok}\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body,
        )
        out["wrong host"] = status_of(r)
        big = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * (6 << 20) + b'"}}'
        out["6 MB body"] = status_of(post_raw(instance, auth, big))
        # A body that claims 6 MB but never sends it: refused on the declared length.
        r = raw_http(
            instance,
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {tok}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {6 << 20}\r\n\r\n{{".encode(),
            timeout=15,
        )
        out["6 MB declared"] = status_of(r)
        # Chunked with no length: the limit applies while streaming.
        chunk = b"x" * (1 << 20)
        r = raw_http(
            instance,
            (
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {tok}\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            ).encode()
            + b"".join(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n" for _ in range(6))
            + b"0\r\n\r\n",
        )
        out["6 MB chunked"] = status_of(r)
        return out

    seen = await Bystander(instance).during(abuse)
    assert seen["evil origin"] == 403 and seen["null origin"] == 403 and seen["rebinding origin"] == 403, seen
    assert seen["wrong host"] in (400, 403), seen
    assert seen["6 MB body"] == 413 and seen["6 MB declared"] == 413, seen
    assert seen["6 MB chunked"] in (413, 400), seen
    assert instance.proc.poll() is None


async def test_slowloris_and_idle_sockets_are_closed_and_block_nobody(instance):
    """20 connections dripping one header byte per second, 20 silent HTTP connections, 10
    silent stdio-socket connections and 5 token-holding requests whose body stops: the client
    is unaffected, and each is closed by its timeout (HTTP: the 10 s header-read timeout and
    the 10 s body idle timeout; socket: the 10 s handshake timeout)."""
    addr = host_port(instance)
    closed_at: dict[str, float] = {}
    lock = threading.Lock()

    def drip(i):
        t0 = time.monotonic()
        with socket.create_connection(addr, timeout=1) as s:
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            for _ in range(40):  # bounded: 40 s at most
                try:
                    s.sendall(b"a")
                    if s.recv(1) == b"":
                        break
                except socket.timeout:
                    continue
                except OSError:
                    break
        with lock:
            closed_at[f"drip{i}"] = time.monotonic() - t0

    answers: dict[str, bytes] = {}

    def slow_body(i):
        """Holds the token and an honest Content-Length, then stops sending the body."""
        t0 = time.monotonic()
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {instance.token}\r\n"
                "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                "Content-Length: 100\r\n\r\n{\"jsonrpc\":")
        with socket.create_connection(addr, timeout=30) as s:
            s.sendall(head.encode())
            got = until_closed(s)
        with lock:
            closed_at[f"body{i}"] = time.monotonic() - t0
            answers[f"body{i}"] = got

    def idle(i, kind):
        t0 = time.monotonic()
        if kind == "http":
            s = socket.create_connection(addr, timeout=30)
        else:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(30)
            s.connect(instance.descriptor["unix"])
        with s:
            got = until_closed(s)
        with lock:
            closed_at[f"{kind}{i}"] = time.monotonic() - t0
            if kind == "unix":
                assert b"handshake timeout" in got, got

    def abuse():
        threads = [threading.Thread(target=drip, args=(i,)) for i in range(20)]
        threads += [threading.Thread(target=idle, args=(i, "http")) for i in range(20)]
        threads += [threading.Thread(target=idle, args=(i, "unix")) for i in range(10)]
        threads += [threading.Thread(target=slow_body, args=(i,)) for i in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)

    await Bystander(instance).during(abuse)
    assert len(closed_at) == 55, sorted(closed_at)
    for k, t in closed_at.items():
        assert HEADER_READ_TIMEOUT - 1 <= t <= HEADER_READ_TIMEOUT + 5, (k, t)
    # A stalled body is answered, not just dropped: 408 with the reason.
    for k, got in answers.items():
        assert got.startswith(b"HTTP/1.1 408"), (k, got[:200])
        assert b"stopped arriving" in got, (k, got)


async def test_full_sse_pool_answers_503_and_frees_on_close(instance):
    auth = {"Authorization": f"Bearer {instance.token}"}
    streams = []

    def open_sse():
        s = socket.create_connection(host_port(instance), timeout=10)
        s.sendall(
            f"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: {auth['Authorization']}\r\n\r\n".encode()
        )
        head = b""
        while b"endpoint" not in head and len(head) < 65536:
            c = s.recv(4096)
            if not c:
                break
            head += c
            if status_of(head) not in (0, 200) and head.rstrip().endswith(b"}"):
                break
        return s, head

    def abuse():
        for _ in range(64):
            s, head = open_sse()
            assert status_of(head) == 200, head[:200]
            streams.append(s)
        s, head = open_sse()
        refused = (status_of(head), head)
        s.close()
        streams.pop().close()
        # The server notices the closed stream (its next write fails) and frees the slot.
        deadline = time.monotonic() + 25
        while True:
            s, head = open_sse()
            if status_of(head) == 200:
                streams.append(s)
                break
            s.close()
            assert time.monotonic() < deadline, "a closed SSE stream never freed its slot"
            time.sleep(0.5)
        return refused, time.monotonic() - (deadline - 25)

    try:
        (status, head), freed_after = await Bystander(instance).during(abuse)
    finally:
        for s in streams:
            s.close()
    assert status == 503 and b"too many SSE sessions" in head, head[:300]
    print(f"SSE slot freed {freed_after:.1f}s after its client closed")


async def test_thousand_connect_disconnects_leak_nothing(tmp_path):
    inst = start_instance(tmp_path, config="[server]\nmax_sessions = 4\n")
    try:
        addr = host_port(inst)
        tok = inst.token

        def abuse():
            for i in range(1000):
                # HTTP: connect and close; every 4th sends half a request first.
                with socket.create_connection(addr, timeout=5) as s:
                    if i % 4 == 0:
                        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127")
                # stdio socket: connect and close, or handshake and close.
                u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                u.settimeout(5)
                u.connect(inst.descriptor["unix"])
                if i % 2 == 0:
                    u.sendall(tok.encode() + b"\n")
                    u.recv(64)
                u.close()

        await Bystander(inst).during(abuse)
        time.sleep(0.5)
        # The pool is not leaked: all four sessions can still be opened, the fifth is refused.
        held = []
        for _ in range(4):
            u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            u.settimeout(5)
            u.connect(inst.descriptor["unix"])
            u.sendall(tok.encode() + b"\n")
            assert u.recv(64).startswith(b"OK"), "a session slot leaked"
            held.append(u)
        u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        u.settimeout(5)
        u.connect(inst.descriptor["unix"])
        u.sendall(tok.encode() + b"\n")
        assert b"session pool is full" in u.recv(256)
        for s in held + [u]:
            s.close()
        r = httpx2.get(inst.url, timeout=5)
        assert r.status_code == 200
        assert inst.proc.poll() is None
    finally:
        inst.stop()
