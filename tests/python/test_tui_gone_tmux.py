"""Issue 15 item 5, nobody waiting: when an agent's connection dies while its call waits for the
person, the modal closes and a `y` pressed after that runs nothing (before: the modal stayed
up about 5 s and a `y` uninstalled the app for nobody). Covers the stdio relay and legacy SSE.
And a call cut off by the control centre's own shutdown reaches its client as the denial the
audit records, not a generic -32603. spock-tui --demo in tmux, raw JSON-RPC over the relay."""
import asyncio
import json
import os
import shutil
import signal
import subprocess
import time

import http.client
import socket
import pytest
from conftest import EXE
from mcp import Client
from tmux_harness import relay, start_tui, text_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

APP = "com.example.notes"
MODAL = "Approve a destructive call"


@pytest.fixture
def tui(tmp_path):
    t = start_tui(tmp_path, "--demo")
    yield t
    t.kill()


class RawRelay:
    """`spock-tui relay` as a subprocess speaking JSON lines, so the test can kill it."""

    def __init__(self, tui):
        env = {**os.environ, "SPOCK_TUI_HOME": str(tui.home)}
        self.proc = subprocess.Popen(
            [EXE, "relay", str(tui.home / "run" / "endpoint.json")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        )
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "doomed-agent", "version": "1.0"}}})
        assert json.loads(self.proc.stdout.readline())["id"] == 1
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def call(self, id_, name, args):
        self.send({"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name, "arguments": args}})

    def read(self, timeout=20):
        """The next JSON line (blocking read on a thread), or None at EOF."""
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None


async def installed(tui) -> bool:
    async with Client(relay(tui), mode="legacy") as c:
        r = await c.call_tool("android_list_packages", {})
        return APP in json.dumps(r.structured_content)


async def assert_nothing_runs_after_the_client_left(tui, tool):
    # The modal closes by itself (a generous bound), and a y then approves nothing.
    deadline = time.monotonic() + 3
    while MODAL in tui.screen() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    tui.keys("y")
    await asyncio.sleep(1.0)
    assert MODAL not in tui.screen(), tui.screen()
    assert await installed(tui), "the app was removed for a client that was gone"
    # On record as cancelled, never ok.
    audit = next(tui.home.rglob("audit.jsonl"))
    recs = [json.loads(line) for line in audit.read_text().splitlines() if line.strip()]
    mine = [r for r in recs if r.get("tool") == tool]
    assert mine and mine[-1]["outcome"] != "ok", mine[-1:]


async def test_a_dead_stdio_client_leaves_nothing_to_approve(tui):
    await tui.wait_for("[running]", "demo")
    agent = RawRelay(tui)
    agent.call(2, "android_uninstall_app", {"packageName": APP})
    await tui.wait_for(MODAL, "android_uninstall_app")
    agent.proc.kill()  # the agent's side dies: its relay with it
    agent.proc.wait()
    await assert_nothing_runs_after_the_client_left(tui, "android_uninstall_app")


async def test_a_dead_sse_client_leaves_nothing_to_approve(tui):
    await tui.wait_for("[running]", "demo")
    d = json.loads((tui.home / "run" / "endpoint.json").read_text())
    host, port = d["http"].split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    headers = {"Authorization": f"Bearer {d['token']}", "Content-Type": "application/json"}
    stream = http.client.HTTPConnection(host, int(port), timeout=10)
    stream.request("GET", "/sse", headers={**headers, "Accept": "text/event-stream"})
    resp = stream.getresponse()
    endpoint = None
    while endpoint is None:
        line = resp.fp.readline().decode()
        if line.startswith("data:"):
            endpoint = line[5:].strip()

    def post(msg):
        c = http.client.HTTPConnection(host, int(port), timeout=10)
        c.request("POST", endpoint, body=json.dumps(msg), headers=headers)
        c.getresponse().read()
        c.close()

    post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "doomed-sse", "version": "1.0"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": "android_clear_app_data", "arguments": {"packageName": APP}}})
    await tui.wait_for(MODAL, "android_clear_app_data")
    # The SSE client goes away: its stream closes.
    resp.fp.raw._sock.shutdown(socket.SHUT_RDWR)
    stream.close()
    await assert_nothing_runs_after_the_client_left(tui, "android_clear_app_data")


async def test_shutdown_reaches_the_client_as_the_recorded_denial(tui):
    await tui.wait_for("[running]", "demo")
    agent = RawRelay(tui)
    agent.call(2, "android_uninstall_app", {"packageName": APP})
    await tui.wait_for(MODAL, "android_uninstall_app")
    # The control centre is stopped with the modal open (SIGTERM, as when its SSH session or
    # terminal goes): the pending call is denied, and that denial is what the client gets.
    pid = int(tui.tmux("display", "-p", "-t", tui.session, "#{pane_pid}").stdout.strip())
    os.kill(pid, signal.SIGTERM)
    reply = await asyncio.wait_for(asyncio.to_thread(agent.read), 20)
    agent.proc.kill()
    assert reply is not None, "the client got no answer at all"
    assert "error" not in reply, f"a protocol error instead of the denial: {reply}"
    result = reply["result"]
    assert result["isError"] is True
    text = " ".join(c.get("text", "") for c in result["content"])
    assert "was not run" in text, text
    assert "denied" in json.dumps(result).lower() or "closed without an answer" in text, result


async def test_shutdown_reaches_an_http_client_as_the_recorded_denial(tui):
    await tui.wait_for("[running]", "demo")
    d = json.loads((tui.home / "run" / "endpoint.json").read_text())
    host, port = d["http"].split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    headers = {"Authorization": f"Bearer {d['token']}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}

    def post(msg, extra=None):
        c = http.client.HTTPConnection(host, int(port), timeout=30)
        c.request("POST", "/mcp", body=json.dumps(msg), headers={**headers, **(extra or {})})
        r = c.getresponse()
        body = r.read().decode()
        sid = r.getheader("mcp-session-id")
        c.close()
        return r.status, body, sid

    _, _, sid = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "http-agent", "version": "1.0"}}})
    extra = {"mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"} if sid else {}
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, extra)
    call = asyncio.create_task(asyncio.to_thread(post, {
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "android_uninstall_app", "arguments": {"packageName": APP}}}, extra))
    await tui.wait_for(MODAL, "android_uninstall_app")
    pid = int(tui.tmux("display", "-p", "-t", tui.session, "#{pane_pid}").stdout.strip())
    os.kill(pid, signal.SIGTERM)
    status, body, _ = await asyncio.wait_for(call, 20)
    assert status == 200, (status, body)
    data = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")] or [body]
    replies = [json.loads(x) for x in data if x.startswith("{")]
    assert replies, f"no JSON-RPC reply at all: {body!r}"
    reply = replies[-1]
    assert "error" not in reply, f"a protocol error instead of the denial: {reply}"
    text = " ".join(c.get("text", "") for c in reply["result"]["content"])
    assert reply["result"]["isError"] is True and "was not run" in text, reply
