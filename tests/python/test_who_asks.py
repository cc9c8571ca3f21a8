"""Issue 31, items 8 and 9, attacked from the agent side with the real Python MCP SDK against
`spock-tui serve --demo`, a raw attach client standing in for the person's terminal.

- A client that calls itself "control centre" (with the server's own version) and whose relay
  claims `ssh from 10.9.8.7` (it sets `SSH_CONNECTION` itself): the request the person is shown
  and the audit record carry what the server verified (stdio, the relay's pid and uid from the
  socket, its parent process from /proc: this test) apart from those claims, and never the
  person's mark, which the person's own batch run of the same task carries.
- `[confirm] via_client = true`: a person who attaches while the client is asked is offered
  the same request; the client's yes is then shown as a claim and runs nothing; only the
  person's answer decides (and a client's no still denies)."""
import asyncio
import os

import mcp_types as types
import pytest
from conftest import EXE, start_instance
from test_attach import attached, audit_records

pytestmark = pytest.mark.anyio

NOTES = {"packageName": "com.example.notes"}
SSH = "10.9.8.7 2222 10.0.0.1 22"


def relay(inst, **env):
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command=EXE, args=["relay", str(inst.descriptor_path)], env={**inst.env(), **env})


def impostor(inst, version, **kw):
    from mcp import Client
    from mcp_types import Implementation

    return Client(relay(inst, SSH_CONNECTION=SSH), mode="legacy",
                  client_info=Implementation(name="control centre", version=version), **kw)


async def test_a_client_named_control_centre_is_shown_and_recorded_as_a_claim(tmp_path):
    from conftest import call

    inst = start_instance(tmp_path, "--demo")
    try:
        person, welcome = await attached(inst)
        async with impostor(inst, welcome["server_version"]) as mcp:
            task = asyncio.create_task(mcp.call_tool("android_uninstall_app", NOTES))
            ask = (await person.until("confirm_asked"))["ask"]
            v = ask.get("verified")
            assert v is not None, ask
            assert v["transport"] == "stdio" and "person" not in v, v
            assert v["session"].startswith("stdio#"), v
            peer = v["peer"]
            # The relay is this process's child: what the socket and /proc say, not the client.
            assert peer["uid"] == os.getuid() and isinstance(peer["pid"], int), peer
            assert peer["parentPid"] == os.getpid() and peer["parentName"], peer
            assert ask["via"] == "ssh from 10.9.8.7:2222", ask
            await person.send(type="decide", call_id=ask["call_id"], approve=False)
            assert (await asyncio.wait_for(task, 15)).is_error

            # The same destructive task, run by the impostor and by the person.
            err, saved = await call(mcp, "android_batch_save", {
                "id": "wipe", "name": "Wipe", "steps": [{"tool": "android_uninstall_app", "arguments": NOTES}]})
            assert not err, saved
            err, started = await call(mcp, "android_batch_run", {"id": "wipe"})
            assert not err, started
            theirs = (await person.until("confirm_asked"))["ask"]
            await person.send(type="decide", call_id=theirs["call_id"], approve=False)
            await person.until("decided", call_id=theirs["call_id"])
        # Their run ends with its denied step; then the person runs the same task.
        for _ in range(100):
            await person.send(type="batch", cmd={"cmd": "run", "task_id": "wipe"})
            reply = await person.until("batch_reply")
            if "done" in reply["reply"]:
                break
            assert "already running" in reply["reply"]["failed"]["message"], reply
            await asyncio.sleep(0.1)
        assert "done" in reply["reply"], reply
        mine = (await person.until("confirm_asked"))["ask"]
        await person.send(type="decide", call_id=mine["call_id"], approve=False)
        await person.until("decided", call_id=mine["call_id"])
        assert mine["verified"] == {"transport": "batch", "person": welcome["you"]}, mine
        tv = theirs["verified"]
        assert tv["transport"] == "batch" and "person" not in tv and tv["peer"]["uid"] == os.getuid(), tv
        person.close()
        # The person's denied step is recorded as the run goes on: wait for it (generously).
        for _ in range(100):
            recs = [r for r in audit_records(inst) if r["tool"] == "android_uninstall_app"]
            if len(recs) >= 3:
                break
            await asyncio.sleep(0.1)
        assert len(recs) == 3, recs
        direct, run_theirs, run_mine = recs
        assert direct["client"] == f"control centre/{welcome['server_version']}", direct
        assert direct["verified"]["transport"] == "stdio" and "person" not in direct["verified"], direct
        assert direct["verified"]["peer"]["parentPid"] == os.getpid(), direct
        assert direct["claimedVia"] == "ssh from 10.9.8.7:2222", direct
        assert "person" not in run_theirs["verified"], run_theirs
        assert run_mine["verified"]["person"] == welcome["you"], run_mine
    finally:
        inst.stop()


VIA_CLIENT = "[confirm]\nvia_client = true\n[safety]\nconfirm_timeout_secs = 30\n"


def holding(asked, release, answer):
    """An elicitation callback that notes the question, then answers `answer` once released."""

    async def on_elicit(ctx, params):
        asked.append(params)
        await release.wait()
        if answer["approve"]:
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    return on_elicit


async def wait_for(pred):
    for _ in range(300):
        if pred():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("never happened")


@pytest.mark.parametrize("transport,mode", [("stdio", "legacy"), ("http", "auto")])
async def test_a_person_attaching_while_the_client_is_asked_gets_the_call_and_alone_approves(tmp_path, transport, mode):
    """2025 sessions (an elicitation request) and 2026-07-28 (input_required, then the retry)."""
    from conftest import call
    from protocol_common import client

    inst = start_instance(tmp_path, "--demo", config=VIA_CLIENT)
    try:
        asked, release, answer = [], asyncio.Event(), {"approve": True}
        async with client(inst, transport, mode, elicitation_callback=holding(asked, release, answer)) as mcp:
            task = asyncio.create_task(mcp.call_tool("android_uninstall_app", NOTES))
            await wait_for(lambda: asked)
            # The client is being asked; now a person attaches: they are offered the call.
            person, welcome = await attached(inst)
            ask = (await person.until("confirm_asked", timeout=10))["ask"]
            assert ask["tool"] == "android_uninstall_app", ask
            cid = ask["call_id"]
            await person.send(type="displayed", call_id=cid)
            # The client says yes: shown to the person as a claim; nothing runs.
            release.set()
            said = await person.until("client_said", call_id=cid)
            assert said["approved"] is True and "MCP client" in said["by"], said
            await asyncio.sleep(0.7)  # past the arming time
            assert not task.done(), "the client's yes decided while a person was attached"
            err, r = await call(mcp, "android_list_packages", {"filter": "com.example.notes"})
            assert not err and r["count"] == 1, r
            # Only the person's answer decides.
            await person.send(type="decide", call_id=cid, approve=False)
            d = await person.until("decided", call_id=cid)
            assert d["by"] == welcome["you"] and d["approved"] is False, d
            assert (await asyncio.wait_for(task, 15)).is_error

            # A client's no, while a person holds the request, denies at once.
            asked.clear()
            release.clear()
            answer["approve"] = False
            person.close()
            await asyncio.sleep(0.3)
            task = asyncio.create_task(mcp.call_tool("android_uninstall_app", NOTES))
            await wait_for(lambda: asked)
            person, welcome = await attached(inst)
            ask = (await person.until("confirm_asked", timeout=10))["ask"]
            release.set()
            d = await person.until("decided", call_id=ask["call_id"])
            assert d["approved"] is False and "MCP client" in d["by"], d
            assert (await asyncio.wait_for(task, 15)).is_error
            person.close()
        recs = [r for r in audit_records(inst) if r["tool"] == "android_uninstall_app"]
        assert [(r["outcome"], r["decision"]["by"]) for r in recs] == [("denied", "attached"), ("denied", "client")], recs
        assert recs[0]["decider"] == welcome["you"] or recs[0]["decider"].startswith("attach pid"), recs[0]
    finally:
        inst.stop()


async def test_over_http_the_verified_part_is_the_peer_address(tmp_path):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types import Implementation

    inst = start_instance(tmp_path, "--demo")
    try:
        person, welcome = await attached(inst)
        info = Implementation(name="control centre", version=welcome["server_version"])
        async with Client(streamable_http_client(inst.url, http_client=inst.http_client()), mode="legacy",
                          client_info=info) as mcp:
            task = asyncio.create_task(mcp.call_tool("android_uninstall_app", NOTES))
            ask = (await person.until("confirm_asked"))["ask"]
            v = ask.get("verified")
            assert v is not None and v["transport"] == "http" and "person" not in v, ask
            assert v["session"].startswith("http session "), v
            assert v["peer"]["addr"].startswith("127.0.0.1:"), v
            assert ask["client"] == {"name": "control centre", "version": welcome["server_version"]}, ask
            await person.send(type="decide", call_id=ask["call_id"], approve=False)
            assert (await asyncio.wait_for(task, 15)).is_error
        person.close()
        rec = [r for r in audit_records(inst) if r["tool"] == "android_uninstall_app"][-1]
        assert rec["verified"]["peer"]["addr"].startswith("127.0.0.1:") and "person" not in rec["verified"], rec
    finally:
        inst.stop()


async def test_the_verified_parent_is_its_executable_not_the_name_it_gives_itself(tmp_path):
    """Review finding: the parent's `comm`, which a process sets itself, was shown as verified:
    a wrapper that named itself `sshd` made a forged `ssh from` claim look confirmed. The
    verified parent is the executable the kernel ran for it."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    before = open("/proc/self/comm", "rb").read().strip()
    inst = start_instance(tmp_path, "--demo")
    try:
        person, welcome = await attached(inst)
        assert libc.prctl(15, b"sshd", 0, 0, 0) == 0  # PR_SET_NAME
        assert open("/proc/self/comm").read().strip() == "sshd"
        async with impostor(inst, "1.0") as mcp:
            task = asyncio.create_task(mcp.call_tool("android_uninstall_app", NOTES))
            ask = (await person.until("confirm_asked"))["ask"]
            peer = ask["verified"]["peer"]
            assert peer["parentPid"] == os.getpid(), peer
            assert peer["parentName"] == os.readlink("/proc/self/exe"), peer
            await person.send(type="decide", call_id=ask["call_id"], approve=False)
            assert (await asyncio.wait_for(task, 15)).is_error
        rec = [r for r in audit_records(inst) if r["tool"] == "android_uninstall_app"][-1]
        assert rec["verified"]["peer"]["parentName"] == os.readlink("/proc/self/exe"), rec
    finally:
        libc.prctl(15, before, 0, 0, 0)
        inst.stop()
