"""Issue 18, the attach channel, attacked with a raw client: `spock-tui serve --demo` and
hand-written protocol lines on its control socket, real MCP calls through `relay`.

- a client of another protocol version, the MCP token, a wrong credential, another uid: refused;
- an approval without `displayed`, or sooner than the arming time after it: refused, audited,
  and the call still waits; a deny is accepted;
- two attached clients: the first decision wins and the other is told who decided;
- with nobody attached, `safety.wait_for_attach` holds the call for the first to attach."""
import asyncio
import json
import os
import shutil
import subprocess
import sys
import time

import pytest
from conftest import start_instance

pytestmark = pytest.mark.anyio

UNINSTALL = ("android_uninstall_app", {"packageName": "com.example.notes"})


def audit_records(inst):
    return [json.loads(l) for l in (inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines() if l.strip()]


def credential(inst) -> str:
    return (inst.home / "config" / "control-credential").read_text().strip()


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

    async def hello(self, inst, **over):
        msg = {"type": "hello", "protocol_version": 1, "credential": credential(inst), "pid": os.getpid(), "tty": "/dev/pts/test"}
        msg.update(over)
        await self.send(**msg)
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


async def test_a_client_of_another_protocol_version_is_refused_and_closed(inst):
    c = await Raw.open(inst)
    m = await c.hello(inst, protocol_version=99)
    assert m["type"] == "error" and m["code"] == "protocol_version", m
    assert "attach protocol 1" in m["message"] and "99" in m["message"], m
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
s.sendall((json.dumps({"type": "hello", "protocol_version": 1, "credential": sys.argv[2], "pid": 1}) + "\n").encode())
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
