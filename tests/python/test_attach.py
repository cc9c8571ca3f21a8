"""Issue 18, the attach channel, attacked with a raw client: `spock-tui serve --demo` and
hand-written protocol lines on its control socket, real MCP calls through `relay`.

- a client of another protocol version, the MCP token, a wrong credential, another uid: refused;
- an approval without `displayed`, or sooner than the arming time after it: refused, audited,
  and the call still waits; a deny is accepted;
- two attached clients: the first decision wins and the other is told who decided;
- with nobody attached, `safety.wait_for_attach` holds the call for the first to attach;
- protocol 2, the whole control centre: an attached client switches a tool off (the server
  then refuses it to an MCP client), changes a setting, gets History from before it attached,
  runs a batch task; none of that without the hello, and never with the MCP token; neither
  the token nor the credential is ever on the wire."""
import asyncio
import hashlib
import hmac
import json
import secrets
import os
import shutil
import subprocess
import sys
import time

import pytest
from conftest import start_instance

pytestmark = pytest.mark.anyio

UNINSTALL = ("android_uninstall_app", {"packageName": "com.example.notes"})
PROTOCOL = 4


def audit_records(inst):
    return [json.loads(l) for l in (inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines() if l.strip()]


def credential(inst) -> str:
    return (inst.home / "config" / "control-credential").read_text().strip()


def proof(cred: str, role: str, client_nonce: str, server_nonce: str) -> str:
    """The attach handshake's proof (docs/attach.md): HMAC-SHA256 under the control credential
    of the role's label and both nonces, hex."""
    msg = f"spock-tui attach proof: {role}\0".encode() + client_nonce.encode() + b"\0" + server_nonce.encode()
    return hmac.new(cred.strip().encode(), msg, hashlib.sha256).hexdigest()


def control_socket(inst) -> str:
    return str(inst.home / "run" / "control.sock")


class Raw:
    """A hand-driven attach client: one JSON object a line, nothing checked on our side."""

    def __init__(self, reader, writer):
        self.r, self.w = reader, writer

    @classmethod
    async def open(cls, inst):
        deadline = time.monotonic() + 10
        while True:
            try:
                r, w = await asyncio.open_unix_connection(control_socket(inst), limit=16 * 1024 * 1024)
                return cls(r, w)
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.05)

    async def send(self, **msg):
        self.w.write((json.dumps(msg) + "\n").encode())
        await self.w.drain()

    async def recv(self, timeout=10.0):
        line = await asyncio.wait_for(self.r.readline(), timeout)
        return json.loads(line) if line else None

    async def until(self, kind, timeout=15.0, **match):
        deadline = time.monotonic() + timeout
        while True:
            m = await self.recv(max(0.1, deadline - time.monotonic()))
            assert m is not None, f"closed while waiting for {kind}"
            if m["type"] == kind and all(m.get(k) == v for k, v in match.items()):
                return m

    async def hello(self, inst, credential=None, **over):
        """The handshake, proving `credential` (the real one unless given): checks the
        server's proof against the real credential, then the welcome or the refusal."""
        real = globals()["credential"](inst)
        cred = real if credential is None else credential
        mine = secrets.token_hex(32)
        msg = {"type": "hello", "protocol_version": PROTOCOL, "nonce": mine, "pid": os.getpid(), "tty": "/dev/pts/test"}
        msg.update(over)
        await self.send(**msg)
        ch = await self.recv()
        if ch is None or ch["type"] != "challenge":
            return ch
        assert hmac.compare_digest(proof(real, "server", mine, ch["nonce"]), ch["proof"]), ch
        assert real not in json.dumps(ch)
        await self.send(type="prove", proof=proof(cred, "client", mine, ch["nonce"]))
        return await self.recv()

    def close(self):
        self.w.close()


@pytest.fixture
def inst(tmp_path):
    i = start_instance(tmp_path, "--demo")
    yield i
    i.stop()


async def attached(inst):
    c = await Raw.open(inst)
    welcome = await c.hello(inst)
    assert welcome["type"] == "welcome", welcome
    return c, welcome


async def approve_next(person, timeout=15.0):
    """The next request `person` is asked, displayed and approved after the arming time; the ask."""
    ask = (await person.until("confirm_asked", timeout=timeout))["ask"]
    await person.send(type="displayed", call_id=ask["call_id"])
    await asyncio.sleep(0.7)
    await person.send(type="decide", call_id=ask["call_id"], approve=True)
    return ask


async def test_a_client_of_another_protocol_version_is_refused_and_closed(inst):
    c = await Raw.open(inst)
    m = await c.hello(inst, protocol_version=99)
    assert m["type"] == "error" and m["code"] == "protocol_version", m
    assert f"attach protocol {PROTOCOL}" in m["message"] and "99" in m["message"], m
    assert await c.recv() is None
    # A version-1 client (the first attach protocol) gets the same clear refusal.
    c = await Raw.open(inst)
    m = await c.hello(inst, protocol_version=1)
    assert m["type"] == "error" and m["code"] == "protocol_version", m
    assert "client speaks 1" in m["message"], m
    assert await c.recv() is None


async def test_the_mcp_token_and_a_wrong_credential_are_refused(inst):
    assert inst.token != credential(inst)
    for presented in (inst.token, "0" * 64, ""):
        c = await Raw.open(inst)
        m = await c.hello(inst, credential=presented)
        assert m["type"] == "error" and m["code"] == "unauthorized", m
        assert await c.recv() is None


async def test_the_credential_file_is_private_and_in_no_client_configuration(inst):
    path = inst.home / "config" / "control-credential"
    assert path.stat().st_mode & 0o777 == 0o600
    assert (inst.home / "run").stat().st_mode & 0o777 == 0o700
    for args in (["config", "--stdio"], ["config", "--http"]):
        out = inst.run(*args).stdout
        assert credential(inst) not in out


async def test_an_unacknowledged_or_early_approval_is_refused_audited_and_the_call_waits(inst):
    from mcp import Client

    c, welcome = await attached(inst)
    async with Client(inst.relay_params(), mode="legacy") as mcp:
        call = asyncio.create_task(mcp.call_tool(*UNINSTALL))
        asked = await c.until("confirm_asked")
        cid = asked["ask"]["call_id"]
        assert asked["ask"]["tool"] == "android_uninstall_app"
        # Approve without ever acknowledging the display.
        await c.send(type="decide", call_id=cid, approve=True)
        m = await c.until("error")
        assert m["code"] == "not_displayed" and m["call_id"] == cid, m
        # Acknowledge, then approve at once: sooner than the arming time.
        await c.send(type="displayed", call_id=cid)
        await c.send(type="decide", call_id=cid, approve=True)
        m = await c.until("error")
        assert m["code"] == "too_early", m
        await asyncio.sleep(0.3)
        assert not call.done(), "an early approval decided the call"
        refused = [a for a in audit_records(inst) if a["tool"] == "attach_decide"]
        assert [r["error"].split(":")[0] for r in refused] == ["approval refused"] * 2, refused
        assert all(r["outcome"] == "refused" and r["client"] == welcome["you"] for r in refused), refused
        assert all(r["arguments"]["callId"] == cid for r in refused), refused
        # A deny needs nothing and is accepted.
        await c.send(type="decide", call_id=cid, approve=False)
        d = await c.until("decided", call_id=cid)
        assert d["approved"] is False and d["by"] == welcome["you"], d
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is True
    rec = [a for a in audit_records(inst) if a["tool"] == "android_uninstall_app"][-1]
    assert rec["outcome"] == "denied" and rec["decider"] == welcome["you"], rec
    c.close()


async def test_two_clients_the_first_decision_wins_and_the_other_learns_who(inst):
    from mcp import Client

    a, wa = await attached(inst)
    b, wb = await attached(inst)
    assert wa["you"] != wb["you"] or wa["you"].startswith("attach pid")
    async with Client(inst.relay_params(), mode="legacy") as mcp:
        call = asyncio.create_task(mcp.call_tool(*UNINSTALL))
        cid = (await a.until("confirm_asked"))["ask"]["call_id"]
        assert (await b.until("confirm_asked"))["ask"]["call_id"] == cid
        await a.send(type="displayed", call_id=cid)
        await b.send(type="displayed", call_id=cid)
        await asyncio.sleep(0.8)
        await a.send(type="decide", call_id=cid, approve=True)
        told = await b.until("decided", call_id=cid)
        assert told["approved"] is True and told["by"] == wa["you"], told
        # Too late: the other terminal's answer changes nothing.
        await b.send(type="decide", call_id=cid, approve=False)
        m = await b.until("error")
        assert m["code"] == "not_pending", m
        r = await asyncio.wait_for(call, 15)
        assert r.is_error is not True, r
    rec = [x for x in audit_records(inst) if x["tool"] == "android_uninstall_app"][-1]
    assert rec["outcome"] == "ok" and rec["decider"] == wa["you"], rec
    a.close()
    b.close()


async def test_a_session_its_client_deletes_withdraws_its_waiting_call(inst):
    """The finding: a 2025-era HTTP client posted an uninstall, then ended its session with
    DELETE; the confirmation stayed up and a later approval uninstalled the app. Ending the
    session withdraws the call: an approval sent right after runs nothing, and the record says
    it was cancelled."""
    import httpx2 as httpx

    c, _ = await attached(inst)
    headers = {
        "Authorization": f"Bearer {inst.token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    async with httpx.AsyncClient(timeout=30) as h:
        init = await h.post(inst.url, headers=headers, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "leaver", "version": "1"}}})
        assert init.status_code == 200, init.text
        sid = init.headers["mcp-session-id"]
        headers |= {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
        r = await h.post(inst.url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert r.status_code == 202, r.text
        # The call on a connection of its own that stays open and unread, as a client
        # waiting on its answer holds it.
        body = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                           "params": {"name": UNINSTALL[0], "arguments": UNINSTALL[1]}})
        hostport = inst.url.split("//")[1].split("/")[0]
        host, port = hostport.rsplit(":", 1)
        _, sock = await asyncio.open_connection(host, int(port))
        sock.write((f"POST /mcp HTTP/1.1\r\nHost: {hostport}\r\nContent-Length: {len(body)}\r\n"
                 + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n" + body).encode())
        await sock.drain()
        cid = (await c.until("confirm_asked"))["ask"]["call_id"]
        await c.send(type="displayed", call_id=cid)
        await asyncio.sleep(0.8)
        gone = await h.delete(inst.url, headers=headers)
        assert gone.status_code in (200, 202, 204), gone.text
        # The person's yes right after the client left: it must run nothing. The server
        # answers it as not pending once the withdrawal reached this session; a yes that
        # arrives first answers a call already cancelled, and no reply comes (under load the
        # DELETE's cancellation can take that long to reach the held request). Either way the
        # record below says the call was cancelled.
        await c.send(type="decide", call_id=cid, approve=True)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                m = await c.recv(timeout=max(0.1, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                break
            assert m is not None
            if m.get("call_id") == cid and m["type"] in ("error", "decided"):
                break
        sock.close()
    deadline = time.monotonic() + 10
    while not (recs := [a for a in audit_records(inst) if a["tool"] == "android_uninstall_app"]):
        assert time.monotonic() < deadline, "no record of the call"
        await asyncio.sleep(0.1)
    rec = recs[-1]
    assert rec["outcome"] == "cancelled", rec
    assert "decider" not in rec or rec["decider"] is None, rec
    c.close()


async def test_nobody_attached_denies_unless_waiting_for_an_attach(tmp_path):
    from mcp import Client

    inst = start_instance(tmp_path, "--demo")
    try:
        async with Client(inst.relay_params(), mode="legacy") as mcp:
            r = await asyncio.wait_for(mcp.call_tool(*UNINSTALL), 15)
            assert r.is_error is True and "nobody can approve" in r.content[0].text, r
    finally:
        inst.stop()
    inst = start_instance(tmp_path, "--demo", config="[safety]\nwait_for_attach = true\n")
    try:
        async with Client(inst.relay_params(), mode="legacy") as mcp:
            call = asyncio.create_task(mcp.call_tool(*UNINSTALL))
            await asyncio.sleep(1.0)
            assert not call.done(), "denied although the config waits for an attach"
            c, _ = await attached(inst)
            cid = (await c.until("confirm_asked"))["ask"]["call_id"]
            await c.send(type="decide", call_id=cid, approve=False)
            r = await asyncio.wait_for(call, 15)
            assert r.is_error is True and "denied" in r.content[0].text, r
            c.close()
    finally:
        inst.stop()


CHILD = r"""
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(json.dumps({"connect": type(e).__name__})); sys.exit(0)
s.sendall((json.dumps({"type": "hello", "protocol_version": 4, "nonce": "00" * 32, "pid": 1}) + "\n").encode())
print(json.dumps({"reply": s.makefile().readline()}))
"""


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")
async def test_another_uid_is_refused(inst):
    # The right credential, from uid 65534: refused at connect (the 0700 directory) or by the
    # peer-uid check, whichever comes first; never attached.
    r = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", CHILD,
         control_socket(inst), credential(inst)],
        capture_output=True, text=True, timeout=30,
    )
    out = json.loads(r.stdout.strip().splitlines()[-1])
    if "connect" in out:
        assert out["connect"] == "PermissionError", out
    else:
        reply = json.loads(out["reply"])
        assert reply["type"] == "error" and reply["code"] == "wrong_user", reply


async def lines_until(c, kind, timeout=15.0, seen=None, **match):
    """`Raw.until`, keeping every message passed over in `seen`."""
    deadline = time.monotonic() + timeout
    while True:
        m = await c.recv(max(0.1, deadline - time.monotonic()))
        assert m is not None, f"closed while waiting for {kind}"
        if seen is not None:
            seen.append(m)
        if m["type"] == kind and all(m.get(k) == v for k, v in match.items()):
            return m


async def test_an_attached_client_switches_a_tool_off_and_the_server_refuses_it(inst):
    from mcp import Client
    from conftest import call

    c, _ = await attached(inst)
    seen = []
    view = await lines_until(c, "view", seen=seen)
    assert "android_get_battery_info" in view["view"]["enabled"]
    async with Client(inst.relay_params(), mode="legacy") as mcp:
        err, _ = await call(mcp, "android_get_battery_info")
        assert not err
        await c.send(type="access", change={"change": "set_enabled", "tool": "android_get_battery_info", "on": False})
        n = await lines_until(c, "notice", seen=seen)
        assert "android_get_battery_info off" in n["message"] and "config.toml" in n["message"], n
        # In force at once, for a session that was already connected.
        err, r = await call(mcp, "android_get_battery_info")
        assert err and r["kind"] == "disabled", r
        v = await lines_until(c, "view", seen=seen)
        assert "android_get_battery_info" not in v["view"]["enabled"], v
    assert "android_get_battery_info" in (inst.home / "config" / "config.toml").read_text()
    # A tool that is not in the catalogue is an error, not a crash.
    await c.send(type="access", change={"change": "set_enabled", "tool": "no_such_tool", "on": False})
    e = await lines_until(c, "error", seen=seen)
    assert e["code"] == "failed" and "no_such_tool" in e["message"], e
    wire = json.dumps(seen)
    assert inst.token not in wire and credential(inst) not in wire
    c.close()


async def test_an_attached_client_changes_a_setting(inst):
    c, _ = await attached(inst)
    await c.send(type="setting", field="confirm_timeout", value=45)
    n = await c.until("notice")
    assert "45" in n["message"] and "config.toml" in n["message"], n
    v = await c.until("view")
    assert v["view"]["confirm_timeout_secs"] == 45, v
    assert "confirm_timeout_secs = 45" in (inst.home / "config" / "config.toml").read_text()
    # Out of range: refused by the config's own checks, nothing saved.
    await c.send(type="setting", field="confirm_timeout", value=0)
    e = await c.until("error")
    assert e["code"] == "failed" and "not saved" in e["message"], e
    assert "confirm_timeout_secs = 45" in (inst.home / "config" / "config.toml").read_text()
    c.close()


async def test_history_from_before_attaching_arrives_after_the_welcome(inst):
    from mcp import Client
    from conftest import call

    async with Client(inst.relay_params(), mode="legacy") as mcp:
        err, _ = await call(mcp, "android_get_battery_info")
        assert not err
    c = await Raw.open(inst)
    assert (await c.hello(inst))["type"] == "welcome"
    records = []
    while True:
        m = await c.recv()
        assert m["type"] == "history", m  # the preload comes first, before any event
        records += m["records"]
        if m["last"]:
            break
    tools = [r["tool"] for r in records]
    assert "android_get_battery_info" in tools, tools
    # Exactly the audit trail's records, as stored.
    trail = {a["seq"]: a for a in audit_records(inst)}
    for r in records:
        assert trail[r["seq"]]["tool"] == r["tool"] and trail[r["seq"]]["arguments"] == r["arguments"]
    c.close()


async def test_an_attached_client_runs_a_batch_task(inst):
    from mcp import Client
    from conftest import call

    async with Client(inst.relay_params(), mode="legacy") as mcp:
        err, saved = await call(mcp, "android_batch_save", {
            "id": "battery", "name": "Battery", "steps": [{"tool": "android_get_battery_info", "arguments": {}}]})
        assert not err, saved
    c, welcome = await attached(inst)
    b = await c.until("batch")
    assert any(t["id"] == "battery" for t in b["data"]["tasks"]), b
    await c.send(type="batch", cmd={"cmd": "run", "task_id": "battery"})
    r = await c.until("batch_reply")
    assert "done" in r["reply"] and "started" in r["reply"]["done"], r
    deadline = time.monotonic() + 20
    while True:
        b = await c.until("batch")
        runs = b["data"]["runs"]
        if runs and runs[0]["summary"]["state"] != "processing":
            break
        assert time.monotonic() < deadline, b
    assert runs[0]["summary"]["state"] == "succeeded", runs[0]
    # The run's steps are on record as started from this terminal.
    steps = [a for a in audit_records(inst) if a["tool"] == "android_get_battery_info" and a.get("batchRun")]
    assert steps and welcome["you"] in steps[-1]["client"], steps[-1]
    c.close()


async def test_commands_need_the_hello_and_never_work_with_the_mcp_token(inst):
    before = (inst.home / "config" / "config.toml").read_text() if (inst.home / "config" / "config.toml").exists() else ""
    # No hello: the first line must be one.
    c = await Raw.open(inst)
    await c.send(type="access", change={"change": "set_enabled", "tool": "android_get_battery_info", "on": False})
    m = await c.recv()
    assert m["type"] == "error" and m["code"] == "bad_message", m
    assert await c.recv() is None
    c = await Raw.open(inst)
    await c.send(type="setting", field="confirm_timeout", value=5)
    m = await c.recv()
    assert m["type"] == "error" and m["code"] == "bad_message", m
    assert await c.recv() is None
    # The MCP token: refused at the hello; the commands after it are never read.
    c = await Raw.open(inst)
    mine = secrets.token_hex(32)
    await c.send(type="hello", protocol_version=PROTOCOL, nonce=mine, pid=os.getpid())
    challenge = await c.recv()
    assert challenge["type"] == "challenge", challenge
    c.w.write((json.dumps({"type": "prove", "proof": proof(inst.token, "client", mine, challenge["nonce"])}) + "\n"
               + json.dumps({"type": "access", "change": {"change": "read_only_only"}}) + "\n"
               + json.dumps({"type": "setting", "field": "confirm_timeout", "value": 5}) + "\n").encode())
    await c.w.drain()
    m = await c.recv()
    assert m["type"] == "error" and m["code"] == "unauthorized", m
    assert await c.recv() is None
    await asyncio.sleep(0.5)
    after = (inst.home / "config" / "config.toml").read_text() if (inst.home / "config" / "config.toml").exists() else ""
    assert after == before
    # And the server still allows the tool.
    ok, _ = await attached(inst)
    v = await ok.until("view")
    assert "android_get_battery_info" in v["view"]["enabled"] and v["view"]["confirm_timeout_secs"] != 5, v
    ok.close()


async def test_a_server_restart_from_an_attached_client_keeps_the_attach(inst):
    from mcp import Client
    from conftest import call

    c, _ = await attached(inst)
    await c.send(type="server", action="restart")
    # The controller's latest state each time it changes (quick steps may merge): the
    # transports go down, then come up again.
    states = []
    while not (states and states[-1] == "running" and {"stopping", "stopped"} & set(states)):
        m = await c.until("server_status")
        states.append(m["status"]["state"])
    # (The first may be the state sent after the welcome.)
    down = next(i for i, st in enumerate(states) if st in ("stopping", "stopped"))
    assert "starting" in states[down:] or states[-1] == "running", states
    # The attach channel stayed up: the same connection still answers commands.
    await c.send(type="setting", field="confirm_timeout", value=40)
    assert "40" in (await c.until("notice"))["message"]
    async with Client(inst.relay_params(), mode="legacy") as mcp:
        err, _ = await call(mcp, "android_get_battery_info")
        assert not err
    c.close()


async def test_an_agents_navigation_request_reaches_an_attached_client(inst):
    from mcp import Client

    c, _ = await attached(inst)
    async with Client(inst.relay_params(), mode="legacy") as mcp:
        nav = asyncio.create_task(mcp.call_tool("spock_navigate", {"destination": "tools"}))
        m = await c.until("navigate")
        assert m["screen"] == "tools", m
        await c.send(type="screen", name="tools")
        await c.send(type="navigated", id=m["id"])
        r = await asyncio.wait_for(nav, 15)
        assert r.structured_content["applied"] is True, r
        st = await mcp.call_tool("spock_get_status", {})
        assert st.structured_content["screen"] == "tools", st.structured_content
        # Refused by the screen: the agent is told why.
        nav = asyncio.create_task(mcp.call_tool("spock_navigate", {"destination": "batch"}))
        m = await c.until("navigate")
        await c.send(type="navigated", id=m["id"], error="the person is typing")
        r = await asyncio.wait_for(nav, 15)
        assert r.structured_content["applied"] is False and "typing" in r.structured_content["reason"], r
        # An answer for a request that is not waiting is an error, not a crash.
        await c.send(type="navigated", id=999)
        e = await c.until("error")
        assert e["code"] == "not_pending", e
    c.close()
    # Detached: the screen is "none" again.
    await asyncio.sleep(0.3)
    async with Client(inst.relay_params(), mode="legacy") as mcp:
        st = await mcp.call_tool("spock_get_status", {})
        assert st.structured_content["screen"] == "none", st.structured_content
