"""Auth, Origin, the socket handshake, the session pool, the relay's behaviour as a process,
file permissions, and token rotation — each answered as designed."""
import asyncio
import json
import os
import socket
import stat
import subprocess
import time

import httpx2
import pytest
from conftest import EXE, RAW_INIT as INIT, start_instance
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio

HDRS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", "Connection": "close"}


def post(inst, token=None, origin=None, body=INIT):
    h = dict(HDRS)
    if token is not None:
        h["Authorization"] = f"Bearer {token}"
    if origin:
        h["Origin"] = origin
    return httpx2.post(inst.url, headers=h, content=json.dumps(body), timeout=10)


def test_http_tokens(instance):
    tok = instance.token
    for bad in (None, "wrong", tok[:-1], tok + "0", tok[:8], "x" * 4000):
        r = post(instance, token=bad)
        assert r.status_code == 401, (bad and bad[:10], r.status_code)
        assert r.json() == {"error": "Missing or invalid bearer token"}
    r = post(instance, token=tok)
    assert r.status_code == 200
    assert r.headers.get("mcp-session-id")


def test_origin_and_health(instance):
    r = post(instance, token=instance.token, origin="http://evil.example")
    assert r.status_code == 403
    r = post(instance, token=instance.token, origin="http://localhost:5173")
    assert r.status_code == 200
    r = httpx2.get(instance.url, timeout=5)
    assert r.status_code == 200 and r.json() == {"status": "running", "transport": "mcp"}
    # The health check answers without a token; the MCP stream does not.
    r = httpx2.get(instance.url, headers={"Accept": "text/event-stream"}, timeout=5)
    assert r.status_code == 401
    r = httpx2.get(instance.base + "/sse", timeout=5)
    assert r.status_code == 401


def test_oversized_body_is_refused(instance):
    big = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"pad": "x" * (5 << 20)}}
    r = post(instance, token=instance.token, body=big)
    assert r.status_code == 413


def unix_connect(inst):
    d = inst.descriptor
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(15)
    s.connect(d["unix"])
    return s


def read_line(s):
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(4096)
        if not chunk:
            break
        buf += chunk
    return buf.decode()


def test_socket_tokens(instance):
    tok = instance.token
    for bad in ("wrong", tok[:-1], tok + "a", ""):
        s = unix_connect(instance)
        s.sendall(bad.encode() + b"\n")
        line = read_line(s)
        assert line.startswith("ERROR unauthorized"), line
        assert s.recv(10) == b""  # closed
    s = unix_connect(instance)
    s.sendall(tok.encode() + b"\n")
    assert read_line(s).startswith("OK")


def test_silent_socket_closed_after_10s(instance):
    s = unix_connect(instance)
    t0 = time.monotonic()
    line = read_line(s)
    elapsed = time.monotonic() - t0
    assert "handshake timeout" in line
    assert 9 <= elapsed <= 14, elapsed


def test_socket_and_dir_permissions(instance):
    d = instance.descriptor
    assert stat.S_IMODE(os.stat(instance.descriptor_path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(d["unix"])).st_mode) == 0o700
    token_file = instance.home / "config" / "token"
    assert stat.S_IMODE(os.stat(token_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(token_file.parent).st_mode) == 0o700
    assert len(token_file.read_text().strip()) >= 64  # 256 bits, hex


def relay(inst, **kw):
    return subprocess.Popen(
        [EXE, "relay", str(inst.descriptor_path)],
        env=inst.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kw,
    )


def test_pool_full_is_refused_with_reason(tmp_path):
    inst = start_instance(tmp_path, config="[server]\nmax_sessions = 2\n")
    try:
        held = []
        for _ in range(2):
            s = unix_connect(inst)
            s.sendall(inst.token.encode() + b"\n")
            assert read_line(s).startswith("OK")
            held.append(s)
        p = relay(inst)
        out, err = p.communicate(b"", timeout=15)
        assert p.returncode != 0
        assert b"session pool is full" in err, err
        assert out == b""
        held[0].close()
        time.sleep(0.3)
        s = unix_connect(inst)
        s.sendall(inst.token.encode() + b"\n")
        assert read_line(s).startswith("OK")
    finally:
        inst.stop()


def test_relay_stdout_is_protocol_only_and_exits_on_stdin_close(instance):
    p = relay(instance)
    msgs = [INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    payload = b"".join(json.dumps(m).encode() + b"\n" for m in msgs)
    p.stdin.write(payload)
    p.stdin.flush()
    lines = []
    while len(lines) < 2:
        line = p.stdout.readline()
        assert line, p.stderr.read()
        lines.append(line)
    p.stdin.close()
    p.wait(timeout=5)
    rest = p.stdout.read()
    for line in lines + ([rest] if rest.strip() else []):
        for part in line.splitlines():
            msg = json.loads(part)  # every byte on stdout is a JSON-RPC message
            assert msg["jsonrpc"] == "2.0"
    assert json.loads(lines[1])["id"] == 2


def test_relay_exits_when_server_stops(tmp_path):
    inst = start_instance(tmp_path)
    # The relay waits a bounded time for a restart (30 s by default); 1 s here.
    p = subprocess.Popen(
        [EXE, "relay", str(inst.descriptor_path)],
        env={**inst.env(), "SPOCK_TUI_RELAY_RECONNECT_SECS": "1"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    p.stdin.write(json.dumps(INIT).encode() + b"\n")
    p.stdin.flush()
    assert p.stdout.readline()
    inst.stop()
    p.wait(timeout=10)
    assert p.returncode == 3
    said = p.stderr.read().decode()
    assert "the instance stopped and none came back within 1 s" in said, said


async def test_an_agents_stdio_session_survives_a_restart_of_the_service(tmp_path):
    """`serve` restarted under a live relay (same home, same token): the agent's session goes
    on without a new initialize; a call after the restart is answered by the new instance."""
    from mcp import Client

    inst = start_instance(tmp_path, "--demo")
    old_pid = inst.descriptor["pid"]
    async with Client(inst.relay_params(), mode="legacy") as c:
        first = await c.call_tool("spock_get_status", {})
        assert first.is_error is False
        inst.stop()
        again = start_instance(tmp_path, "--demo")
        try:
            assert again.descriptor["pid"] != old_pid
            after = await asyncio.wait_for(c.call_tool("spock_get_status", {}), 30)
            assert after.is_error is False, after
        finally:
            again.stop()
    # One call before the restart, one answered by the new instance (the old one was stopped).
    audit = inst.home / "data" / "audit" / "audit.jsonl"
    calls = [json.loads(l) for l in audit.read_text().splitlines() if '"spock_get_status"' in l]
    assert len(calls) == 2, calls


def test_relay_refuses_clearly_without_server(tmp_path):
    p = subprocess.run([EXE, "relay", str(tmp_path / "nope.json")], capture_output=True, timeout=10, input=b"")
    assert p.returncode != 0 and p.stdout == b""
    assert b"cannot read" in p.stderr


async def test_rotation_invalidates_both_transports(instance):
    old = instance.token
    p = relay(instance)
    p.stdin.write(json.dumps(INIT).encode() + b"\n")
    p.stdin.flush()
    assert p.stdout.readline()
    r = instance.run("token", "rotate")
    assert r.returncode == 0, r.stderr
    deadline = time.monotonic() + 5
    while post(instance, token=old).status_code != 401:
        assert time.monotonic() < deadline, "old token still accepted over HTTP"
        time.sleep(0.1)
    p.wait(timeout=5)  # the live relay session ended
    s = unix_connect(instance)
    s.sendall(old.encode() + b"\n")
    assert read_line(s).startswith("ERROR unauthorized")
    # the descriptor now carries the new token, so new clients work on both transports
    new = instance.token
    assert new != old
    assert post(instance, token=new).status_code == 200
    async with Client(instance.relay_params(), mode="legacy") as c:
        assert (await c.call_tool("spock_get_status", {})).is_error is False
    async with Client(streamable_http_client(instance.url, http_client=instance.http_client(new)), mode="auto") as c:
        assert (await c.call_tool("spock_get_status", {})).is_error is False


def test_config_prints_ready_to_paste_configs(instance):
    r = instance.run("config", "--stdio", "--client", "claude-desktop")
    assert r.returncode == 0, r.stderr
    cfg = json.loads(r.stdout)
    entry = cfg["mcpServers"]["spock-tui"]
    assert entry["args"][0] == "relay" and instance.token not in r.stdout
    r = instance.run("config", "--http", "--client", "vscode")
    cfg = json.loads(r.stdout)
    assert cfg["servers"]["spock-tui"]["url"] == instance.url
    assert instance.token in r.stdout


async def test_tcp_fallback_when_the_socket_path_is_too_long(tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)  # run/mcp.sock under here exceeds sun_path
    inst = start_instance(tmp_path, home=deep)
    try:
        d = inst.descriptor
        assert "tcp" in d and "unix" not in d, d
        assert d["tcp"].startswith("127.0.0.1:")
        async with Client(inst.relay_params(), mode="legacy") as c:
            r = await c.call_tool("spock_get_status", {})
            assert r.structured_content["endpoints"]["stdio"].startswith("tcp:")
        # the fallback port still demands the token
        host, port = d["tcp"].rsplit(":", 1)
        s = socket.create_connection((host, int(port)), timeout=10)
        s.sendall(b"not-the-token\n")
        assert read_line(s).startswith("ERROR unauthorized")
    finally:
        inst.stop()


def test_legacy_sse_checks_host_like_mcp(instance):
    """DNS rebinding: a page on a foreign name that resolves to 127.0.0.1 sends Host: evil.example.
    /mcp refuses it; the legacy pair must too, token or not (issue 16)."""
    auth = {"Authorization": f"Bearer {instance.token}", "Connection": "close"}
    foreign = {**auth, "Host": "evil.example"}
    r = httpx2.post(instance.url, headers={**HDRS, **foreign}, content=json.dumps(INIT), timeout=10)
    assert r.status_code == 403, r.status_code
    r = httpx2.get(instance.base + "/sse", headers=foreign, timeout=5)
    assert r.status_code == 403, (r.status_code, r.text[:200])
    r = httpx2.post(instance.base + "/message?sessionId=x", headers={**foreign, "Content-Type": "application/json"},
                    content=json.dumps(INIT), timeout=5)
    assert r.status_code == 403, (r.status_code, r.text[:200])
    assert r.json() == {"error": "Host not allowed: this server answers only to localhost, 127.0.0.1 and [::1]"}
    # The loopback names still work.
    for host in ("localhost", "127.0.0.1"):
        with httpx2.stream("GET", instance.base + "/sse", headers={**auth, "Host": host}, timeout=5) as r:
            assert r.status_code == 200, (host, r.status_code)


def raw(inst, method, path, host, headers=(), body=None):
    """One request over http.client with `Host` as given: (status, headers, body)."""
    import http.client
    import urllib.parse

    u = urllib.parse.urlsplit(inst.base)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    try:
        c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        c.putheader("Host", host)
        for k, v in headers:
            c.putheader(k, v)
        if body is not None:
            c.putheader("Content-Length", str(len(body)))
        c.endheaders(body)
        r = c.getresponse()
        return r.status, dict(r.getheaders()), r.read(4096)
    finally:
        c.close()


def test_a_foreign_host_gets_403_on_every_route_token_or_not(instance):
    """DNS rebinding (issue 32 item 5): a page on evil.example rebound to 127.0.0.1 sends
    `Host: evil.example`. Nothing it reaches may answer as spock-tui: not the status page
    (`GET /mcp` without a token), not a 401 with its realm, not a 404 naming it — 403, with a
    body that says why and names no server. The loopback names answer as before."""
    port = instance.base.rsplit(":", 1)[1]
    tok = ("Authorization", f"Bearer {instance.token}")
    sse = ("Accept", "text/event-stream")
    js = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")]
    init = json.dumps(INIT).encode()
    cases = [
        ("GET", "/mcp", []),
        ("GET", "/mcp", [tok]),
        ("GET", "/mcp", [sse]),
        ("POST", "/mcp", js),
        ("POST", "/mcp", [tok, *js]),
        ("GET", "/sse", []),
        ("GET", "/sse", [tok]),
        ("POST", "/message?sessionId=x", [tok, *js]),
        ("GET", "/.well-known/oauth-authorization-server", []),
        ("GET", "/nowhere", []),
    ]
    for foreign in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}", "10.0.0.5"):
        for method, path, headers in cases:
            status, hdrs, body = raw(instance, method, path, foreign, headers, init if method == "POST" else None)
            assert status == 403, (foreign, method, path, status, body[:200])
            assert json.loads(body) == {"error": "Host not allowed: this server answers only to localhost, "
                                                  "127.0.0.1 and [::1]"}, body
            text = (body + json.dumps(hdrs).encode()).lower()
            for fingerprint in (b"spock", b"running", b"mcp", b"bearer", b"realm"):
                assert fingerprint not in text, (foreign, method, path, fingerprint, text)
    # The loopback names: the status page as before, the token asked for as before.
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost"):
        status, _, body = raw(instance, "GET", "/mcp", host)
        assert status == 200 and json.loads(body) == {"status": "running", "transport": "mcp"}, (host, body)
        status, _, _ = raw(instance, "GET", "/sse", host)
        assert status == 401, host
        status, _, _ = raw(instance, "POST", "/mcp", host, [tok, *js], init)
        assert status == 200, host
