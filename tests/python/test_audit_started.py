"""Issue 33, "nothing in flight is lost": a destructive call's `started` record is on disk and
anchored before the call runs, and its ending names it (`started`). Against the real server
(`serve --demo`: the virtual device behind its adb-server front door), a real MCP client over
`relay`, an attached control client that approves, and the anchors read from a unix datagram
socket of the test's own (what `/dev/log` is to syslog):

- while the approved `sleep` runs, its started record (seq, tool, arguments, the approval) is in
  `audit.jsonl` and its seq has been anchored; a control client attaching then is not sent it
  (the call is running, not interrupted);
- kill -9 mid-call: the started record stays, with no ending; `audit verify` says intact;
- restarted, the server continues the sequence after it and sends it in the History preload,
  where the control centre shows it as interrupted (tests in src/tui/history.rs);
- a call that ends normally has two records, the ending naming the started one."""
import asyncio
import json
import os
import re
import signal
import socket
import time

import pytest
from conftest import start_instance
from mcp import Client
from test_attach import attached, audit_records

pytestmark = pytest.mark.anyio

SLEEP = ("android_run_adb_command", {"command": "sleep 30", "reason": "a call that runs long enough to be killed", "timeoutMs": 60000})
QUICK = ("android_run_adb_command", {"command": "echo done", "reason": "a call that ends"})


class Anchors:
    """A unix datagram socket the server anchors to (`[audit] anchor = "unix:PATH"`)."""

    def __init__(self, tmp_path):
        self.path = str(tmp_path / "anchors.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.setblocking(False)
        self.seen = []

    def config(self) -> str:
        return f'[audit]\nanchor = "unix:{self.path}"\n'

    def drain(self):
        while True:
            try:
                self.seen.append(self.sock.recv(65536).decode(errors="replace"))
            except BlockingIOError:
                return self.seen

    def seqs(self, reason=None):
        out = []
        for m in self.drain():
            s = re.search(r'seq="(\d+)"', m)
            r = re.search(r'reason="(\w+)"', m)
            if s and (reason is None or (r and r.group(1) == reason)):
                out.append(int(s.group(1)))
        return out

    def close(self):
        self.sock.close()


async def approve(c, timeout=20.0):
    """Answer the next confirmation with a yes, as a control centre does (shown, then armed)."""
    cid = (await c.until("confirm_asked", timeout=timeout))["ask"]["call_id"]
    await c.send(type="displayed", call_id=cid)
    await asyncio.sleep(0.8)
    await c.send(type="decide", call_id=cid, approve=True)
    return cid


async def until_record(inst, pred, timeout=15.0):
    deadline = time.monotonic() + timeout
    while True:
        path = inst.home / "data" / "audit" / "audit.jsonl"
        if path.exists():
            hit = [r for r in audit_records(inst) if pred(r)]
            if hit:
                return hit[-1]
        assert time.monotonic() < deadline, f"no such record: {audit_records(inst)}"
        await asyncio.sleep(0.05)


async def history_preload(c):
    """Every record of the History preload an attached client is sent after the welcome."""
    records = []
    while True:
        m = await c.until("history")
        records += m["records"]
        if m["last"]:
            return records


async def test_kill_9_mid_call_leaves_its_started_record_anchored_and_the_trail_intact(tmp_path):
    anchors = Anchors(tmp_path)
    inst = start_instance(tmp_path, "--demo", config=anchors.config())
    killed = False
    try:
        c, welcome = await attached(inst)
        async with Client(inst.relay_params(), mode="legacy") as mcp:
            call = asyncio.create_task(mcp.call_tool(*SLEEP))
            await approve(c)
            started = await until_record(inst, lambda r: r["outcome"] == "started")
            # On disk while the call runs (the sleep has 30 s to go), as the call was approved.
            assert not call.done()
            assert started["tool"] == SLEEP[0] and started["arguments"]["command"] == "sleep 30", started
            assert started["level"] == "destructive" and started["durationMs"] == 0, started
            assert started["decision"] == {"approved": True, "by": "attached"}, started
            assert started["decider"] == welcome["you"], started
            assert "result" not in started and "error" not in started and "started" not in started, started
            # Anchored (after its sync) before the call ended.
            deadline = time.monotonic() + 5
            while started["seq"] not in anchors.seqs("record"):
                assert time.monotonic() < deadline, f"seq {started['seq']} never anchored: {anchors.seen}"
                await asyncio.sleep(0.05)
            # A control centre attaching now is not told of a call that runs as interrupted: the
            # running call's started record is left out of its History.
            late, _ = await attached(inst)
            assert started["seq"] not in [r["seq"] for r in await history_preload(late)]
            late.close()
            assert not call.done()
            os.kill(inst.proc.pid, signal.SIGKILL)
            inst.proc.wait(timeout=10)
            killed = True
            call.cancel()
            try:
                await call
            except BaseException:
                pass
    except BaseException:
        if not killed:
            raise
    finally:
        inst.stop()
    records = audit_records(inst)
    [kept] = [r for r in records if r["seq"] == started["seq"]]
    assert kept == started
    assert not [r for r in records if r.get("started") == started["seq"]], records
    assert records[-1]["seq"] == started["seq"], "nothing after the started record: the call never ended"
    v = inst.run("audit", "verify")
    assert v.returncode == 0 and "intact" in v.stdout, (v.stdout, v.stderr)
    assert f"seq {started['seq']} started and have no ending" in v.stdout, v.stdout

    # Restarted: the sequence goes on after the started record, which the History preload
    # carries (the control centre shows it as interrupted).
    inst2 = start_instance(tmp_path, "--demo", home=inst.home, config=anchors.config())
    try:
        c, _ = await attached(inst2)
        preload = await history_preload(c)
        [again] = [r for r in preload if r["seq"] == started["seq"]]
        assert again["outcome"] == "started" and again["tool"] == SLEEP[0], again
        assert not [r for r in preload if r.get("started") == started["seq"]], preload
        async with Client(inst2.relay_params(), mode="legacy") as mcp:
            r = await mcp.call_tool("android_get_battery_info", {})
            assert r.is_error is False
        after = await until_record(inst2, lambda r: r["tool"] == "android_get_battery_info")
        assert after["seq"] > started["seq"], after
        c.close()
    finally:
        inst2.stop()
        anchors.close()
    v = inst2.run("audit", "verify")
    assert v.returncode == 0 and "intact" in v.stdout, (v.stdout, v.stderr)


async def test_a_call_that_ends_has_a_started_record_and_an_ending_that_names_it(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        c, _ = await attached(inst)
        async with Client(inst.relay_params(), mode="legacy") as mcp:
            call = asyncio.create_task(mcp.call_tool(*QUICK))
            await approve(c)
            r = await asyncio.wait_for(call, 20)
            assert r.is_error is False, r
            # Denied: nothing ran, so no started record.
            call = asyncio.create_task(mcp.call_tool(*QUICK))
            cid = (await c.until("confirm_asked"))["ask"]["call_id"]
            await c.send(type="decide", call_id=cid, approve=False)
            r = await asyncio.wait_for(call, 20)
            assert r.is_error is True
        c.close()
    finally:
        inst.stop()
    recs = [r for r in audit_records(inst) if r["tool"] == QUICK[0]]
    assert [r["outcome"] for r in recs] == ["started", "ok", "denied"], recs
    first, ending, denied = recs
    assert ending["started"] == first["seq"] and ending["seq"] > first["seq"], recs
    assert first["time"] == ending["time"] and first["arguments"] == ending["arguments"], recs
    assert first["decision"] == ending["decision"] and first["decider"] == ending["decider"], recs
    assert "started" not in denied, denied
    v = inst.run("audit", "verify")
    assert v.returncode == 0, (v.stdout, v.stderr)
