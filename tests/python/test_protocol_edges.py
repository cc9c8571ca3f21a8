"""Errors and edges every transport answers as JSON-RPC (issue 20): unparseable JSON (-32700,
HTTP 400; on stdio a reply with id null, never a dropped line), a malformed initialize
(-32602), the 401 challenge and the OAuth discovery paths, a sessionless request naming a
version this server does not speak (-32022), resource reads typed as listed, and a portable
`window` schema."""
import http.client
import json
import subprocess
import urllib.parse

import pytest
from conftest import EXE, RAW_INIT
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class Reply:
    def __init__(self, status, headers, body):
        self.status_code, self.headers, self.text = status, headers, body

    def json(self):
        return json.loads(self.text)


def request(url, method="GET", body=b"", headers=None) -> Reply:
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    try:
        c.request(method, u.path + (f"?{u.query}" if u.query else ""), body=body or None, headers=headers or {})
        r = c.getresponse()
        return Reply(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode())
    finally:
        c.close()


def post(inst, body: bytes, **headers):
    h = {**HEADERS, "Authorization": f"Bearer {inst.token}", **headers}
    return request(inst.url, "POST", body, h)


def test_http_parse_error_is_jsonrpc_400(instance):
    r = post(instance, b'{"jsonrpc":"2.0","id":1,"method":')
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["error"]["code"] == -32700 and body["id"] is None, body


@pytest.mark.parametrize("params", [
    None,
    {"capabilities": {}, "clientInfo": {"name": "x", "version": "1"}},
    {"protocolVersion": "2025-06-18", "capabilities": {}},
    {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x"}},
])
def test_http_malformed_initialize_is_invalid_params(instance, params):
    msg = {"jsonrpc": "2.0", "id": 5, "method": "initialize"}
    if params is not None:
        msg["params"] = params
    r = post(instance, json.dumps(msg).encode())
    body = r.json()
    assert body["error"]["code"] == -32602, body
    assert body["id"] == 5
    assert "Session" not in body["error"]["message"], body


NOT_JSONRPC = [b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', b"[]", b"5", b'"hi"',
               b'{"jsonrpc":"1.0","id":1,"method":"ping"}', b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
               b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', b'{"jsonrpc":"2.0","id":1}',
               b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}']


@pytest.mark.parametrize("body", NOT_JSONRPC)
def test_json_that_is_no_jsonrpc_message_is_invalid_request_400(instance, body):
    """They had `415 fail to deserialize request body` in plain text (415 is for a wrong
    Content-Type)."""
    for extra in ({}, {"MCP-Protocol-Version": "2026-07-28"}):
        r = post(instance, body, **extra)
        assert r.status_code == 400, (body, r.status_code, r.text)
        assert r.headers["content-type"].startswith("application/json"), r.headers
        reply = r.json()
        assert reply["error"]["code"] == -32600 and "id" in reply, reply


@pytest.mark.parametrize("params", [{"name": 5}, {"name": "android_list_devices", "arguments": [1]}])
def test_unreadable_tool_call_params_are_invalid_params_not_method_not_found(instance, params):
    """They were `-32601 Method not found` (HTTP 404 in 2026-07-28)."""
    msg = {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": params}
    for extra in ({}, {"MCP-Protocol-Version": "2026-07-28"}):
        r = post(instance, json.dumps(msg).encode(), **extra)
        reply = r.json()
        assert reply["error"]["code"] == -32602 and reply["id"] == 6, reply


def test_unsupported_version_header_gets_the_2026_error(instance):
    msg = {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}}
    r = post(instance, json.dumps(msg).encode(), **{"MCP-Protocol-Version": "1900-01-01"})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == -32022, err
    assert err["data"]["requested"] == "1900-01-01"
    assert "2026-07-28" in err["data"]["supported"] and "2025-06-18" in err["data"]["supported"]
    assert r.json()["id"] == 9


def test_401_carries_the_bearer_challenge(instance):
    for method, path in (("POST", "/mcp"), ("GET", "/sse"), ("POST", "/message?sessionId=x")):
        r = request(instance.base + path, method, b"{}" if method == "POST" else b"", HEADERS)
        assert r.status_code == 401, (path, r.status_code)
        assert r.headers["www-authenticate"] == 'Bearer realm="spock-tui"', r.headers
    r = request(instance.url, "POST", b"{}", {**HEADERS, "Authorization": "Bearer wrong"})
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == 'Bearer realm="spock-tui", error="invalid_token"'


def test_oauth_discovery_paths_are_404(instance):
    for p in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server",
              "/.well-known/oauth-protected-resource/mcp"):
        r = request(instance.base + p)
        assert r.status_code == 404, (p, r.status_code)


def test_sse_message_parse_error_is_jsonrpc(instance):
    u = urllib.parse.urlsplit(instance.base)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    try:
        c.request("GET", "/sse", headers={"Authorization": f"Bearer {instance.token}"})
        r = c.getresponse()
        endpoint = None
        while endpoint is None:
            line = r.fp.readline().decode()
            assert line, "the SSE stream ended before naming its endpoint"
            if line.startswith("data:"):
                endpoint = line[5:].strip()
        got = request(instance.base + endpoint, "POST", b"{nope",
                      {"Authorization": f"Bearer {instance.token}", "Content-Type": "application/json"})
        assert got.status_code == 400, got.text
        assert got.json()["error"]["code"] == -32700
        # JSON that is no JSON-RPC message: answered here with its id (null), where it had
        # reached the stream as an error without one.
        for body in NOT_JSONRPC:
            got = request(instance.base + endpoint, "POST", body,
                          {"Authorization": f"Bearer {instance.token}", "Content-Type": "application/json"})
            assert got.status_code == 400, (body, got.text)
            reply = got.json()
            assert reply["error"]["code"] == -32600 and "id" in reply, reply
    finally:
        c.close()


def stdio_exchange(inst, lines, want):
    p = subprocess.Popen([EXE, "relay", str(inst.descriptor_path)], env=inst.env(),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        p.stdin.write(b"".join(lines))
        p.stdin.flush()
        out = []
        while len(out) < want:
            line = p.stdout.readline()
            assert line, p.stderr.read()
            out.append(json.loads(line))
        return out
    finally:
        p.stdin.close()
        p.wait(timeout=10)


def test_stdio_parse_error_and_malformed_initialize_are_answered(instance):
    bad_init = {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"capabilities": {}}}
    out = stdio_exchange(instance, [
        b"this is not json\n",
        json.dumps(bad_init).encode() + b"\n",
        json.dumps(RAW_INIT).encode() + b"\n",
    ], 3)
    assert out[0]["error"]["code"] == -32700 and out[0]["id"] is None, out[0]
    assert out[1]["error"]["code"] == -32602 and out[1]["id"] == 3, out[1]
    assert "_meta" not in out[1]["error"]["message"]
    # The session goes on: the good initialize is answered.
    assert out[2]["id"] == 1 and out[2]["result"]["serverInfo"]["name"] == "spock-tui", out[2]


async def test_resource_reads_are_typed_as_listed(instance):
    async with Client(instance.relay_params(), mode="legacy") as c:
        listed = {str(r.uri): r.mime_type for r in (await c.list_resources()).resources}
        for uri, mime in listed.items():
            got = (await c.read_resource(uri)).contents[0]
            assert got.mime_type == mime == "application/json", (uri, got.mime_type, mime)


async def test_window_schema_has_no_type_array(instance):
    async with Client(streamable_http_client(instance.url, http_client=instance.http_client()), mode="legacy") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        window = tools["android_get_ui_tree"].input_schema["properties"]["window"]
        assert window["type"] == "string", window
        assert "anyOf" not in json.dumps(window) and "oneOf" not in json.dumps(window)


def test_an_id_reused_while_its_request_is_open_is_refused_and_the_first_answered(tmp_path):
    """The finding: a second request with id 7 while the first (a 3 s wait) was open got its
    answer, and the first POST never did. The reuse is refused; the first is answered; once
    answered, the id is free again."""
    import threading
    import time

    from conftest import start_instance

    instance = start_instance(tmp_path, "--demo")
    try:
        reuse(instance, threading, time)
    finally:
        instance.stop()


def reuse(instance, threading, time):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "reuser", "version": "1"}}}
    r = post(instance, json.dumps(init).encode())
    assert r.status_code == 200, r.text
    s = {"Mcp-Session-Id": r.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
    post(instance, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(), **s)
    wait = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "android_wait_for_element", "arguments": {"element": "nope", "timeoutMs": 3000}}}
    status = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "spock_get_status"}}
    first = {}
    t = threading.Thread(target=lambda: first.setdefault("r", post(instance, json.dumps(wait).encode(), **s)))
    t.start()
    time.sleep(0.5)
    second = post(instance, json.dumps(status).encode(), **s)
    assert second.status_code == 400, second.text
    assert second.json()["error"]["code"] == -32600 and "already in use" in second.text, second.text
    t.join(30)
    assert not t.is_alive(), "the first request was never answered"
    answer = first["r"]
    assert answer.status_code == 200, answer.text
    assert '"id":7' in answer.text.replace(" ", "") and "result" in answer.text, answer.text
    again = post(instance, json.dumps(status).encode(), **s)
    assert again.status_code == 200 and "result" in again.text, again.text
    # The same over stdio (the relay): the reuse is refused, the first is answered.
    init["params"]["clientInfo"]["name"] = "reuser-stdio"
    lines = [json.dumps(m).encode() + b"\n" for m in (
        init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, wait, status)]
    out = stdio_exchange(instance, lines, 3)
    refused = [m for m in out if "error" in m]
    answered = {m["id"]: m for m in out if "result" in m}
    assert len(refused) == 1 and refused[0]["error"]["code"] == -32600 and refused[0]["id"] is None, out
    assert set(answered) == {1, 7}, out
    assert "did not" in json.dumps(answered[7]), answered[7]
