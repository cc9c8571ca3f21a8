"""A client that sends requests and never reads the replies is dropped after the write timeout
(`server.write_timeout_secs`, 2 s here), on every transport that writes to clients: pipelined
`/mcp` POSTs, the legacy `/sse` stream fed through `/message`, and the stdio socket the relay
uses. Each sends hundreds of `tools/list` (47 KB a reply) so the socket buffers fill, then
reads nothing. Meanwhile a well-behaved SDK client keeps calling unaffected; afterwards the
freed socket slot (`max_sessions = 1`) serves a relay client. Loopback only; every wait
bounded."""
import http.client
import json
import socket
import threading
import time

import pytest
from conftest import RAW_INIT, start_instance
from mcp import Client
from test_reliability import Bystander, host_port

pytestmark = pytest.mark.anyio

WRITE_TIMEOUT = 2
# Far more reply bytes than loopback socket buffers (and the legacy SSE pipe, 8 MB) hold.
REQUESTS = 600
LIST = {"jsonrpc": "2.0", "method": "tools/list"}
CONFIG = f"[server]\nwrite_timeout_secs = {WRITE_TIMEOUT}\nmax_sessions = 1\n"


def lists(first_id=10, n=REQUESTS):
    return [{**LIST, "id": first_id + i} for i in range(n)]


def wait_for_log(inst, needle: str, deadline_s=60) -> float:
    """Seconds until the server's log holds `needle` (fails after `deadline_s`)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < deadline_s:
        if needle in inst.stderr():
            return time.monotonic() - t0
        time.sleep(0.1)
    raise AssertionError(f"no {needle!r} in the log within {deadline_s}s:\n{inst.stderr()[-3000:]}")


def drained_then_closed(s: socket.socket, timeout=20.0) -> tuple[bool, int]:
    """Read what the server had queued; True when it then closes (EOF or reset), False when
    it is still open after `timeout` of silence or 60 s in all (keep-alives never go silent)."""
    s.settimeout(timeout)
    got = 0
    end = time.monotonic() + 60
    try:
        while time.monotonic() < end:
            c = s.recv(1 << 20)
            if not c:
                return True, got
            got += len(c)
        return False, got
    except ConnectionResetError:
        return True, got
    except socket.timeout:
        return False, got


def send_quietly(s: socket.socket, data: bytes):
    """Send what the server will take; a server that stops reading (or closed) ends it."""
    s.settimeout(10)
    try:
        s.sendall(data)
    except OSError:
        pass


def stalled_mcp_post(inst) -> dict:
    """Pipelined POSTs on one keep-alive connection, replies never read."""
    hp = host_port(inst)
    headers = {"Authorization": f"Bearer {inst.token}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    c = http.client.HTTPConnection(*hp, timeout=30)
    c.request("POST", "/mcp", body=json.dumps(RAW_INIT), headers=headers)
    r = c.getresponse()
    r.read()
    sid = r.getheader("mcp-session-id")
    extra = {"mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"}
    c.request("POST", "/mcp", body=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
              headers={**headers, **extra})
    c.getresponse().read()
    c.close()
    raw = b""
    for msg in lists():
        body = json.dumps(msg).encode()
        head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for k, v in {**headers, **extra, "Content-Length": str(len(body))}.items():
            head += f"{k}: {v}\r\n"
        raw += head.encode() + b"\r\n" + body
    s = socket.create_connection(hp)
    send_quietly(s, raw)
    took = wait_for_log(inst, "write timeout")
    closed, got = drained_then_closed(s)
    s.close()
    return {"closed": closed, "bytes": got, "logged_after": took}


def stalled_legacy_sse(inst) -> dict:
    """GET /sse read only up to its endpoint event; hundreds of /message posts after it."""
    hp = host_port(inst)
    s = socket.create_connection(hp)
    s.sendall((f"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {inst.token}\r\n"
               "Accept: text/event-stream\r\n\r\n").encode())
    head = b""
    s.settimeout(10)
    while b"sessionId=" not in head or b"\n" not in head.split(b"sessionId=", 1)[1]:
        head += s.recv(4096)
    sid = head.split(b"sessionId=", 1)[1].split(b"\n", 1)[0].strip().decode()
    headers = {"Authorization": f"Bearer {inst.token}", "Content-Type": "application/json"}

    def post_all():
        c = http.client.HTTPConnection(*hp, timeout=10)
        for msg in [RAW_INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *lists()]:
            try:
                c.request("POST", f"/message?sessionId={sid}", body=json.dumps(msg), headers=headers)
                c.getresponse().read()
            except OSError:
                return  # the session is gone (410) or the pipe is full and we gave up

    poster = threading.Thread(target=post_all, daemon=True)
    poster.start()
    took = wait_for_log(inst, "write timeout")
    closed, got = drained_then_closed(s)
    s.close()
    poster.join(30)
    return {"closed": closed, "bytes": got, "logged_after": took, "poster_done": not poster.is_alive()}


def stalled_socket(inst) -> dict:
    """The relay's Unix socket: token, initialize, hundreds of requests, nothing read."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(inst.descriptor["unix"])
    lines = [json.dumps(RAW_INIT), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    lines += [json.dumps(m) for m in lists()]
    send_quietly(s, (inst.token + "\n" + "\n".join(lines) + "\n").encode())
    took = wait_for_log(inst, "peer=stdio socket")
    closed, got = drained_then_closed(s)
    s.close()
    return {"closed": closed, "bytes": got, "logged_after": took}


@pytest.mark.parametrize("stall", [stalled_mcp_post, stalled_legacy_sse, stalled_socket])
async def test_a_client_that_never_reads_is_dropped_and_others_are_served(tmp_path, stall):
    inst = start_instance(tmp_path, config=CONFIG)
    try:
        got = await Bystander(inst).during(stall, inst)
        # Everything the server sent was what fitted in the buffers; then it closed.
        assert got["closed"], f"still open after the write timeout: {got}"
        assert got["bytes"] < REQUESTS * 40_000, got
        assert got.get("poster_done", True), got
        # The dropped session freed its slot: a relay client (max_sessions = 1) is served.
        async with Client(inst.relay_params(), mode="legacy") as c:
            assert (await c.call_tool("spock_get_status", {})).is_error is False
        print(f"\n{stall.__name__}: {got}")
    finally:
        inst.stop()
