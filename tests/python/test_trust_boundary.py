"""Where the approval guarantee ends (SECURITY.md, issue 40): the review's self-approval
sequence, run by a process of the person's own user, still works (the same-user limit the
threat model states), and the record of that decision names what the server verified about
the process that made it (its pid, uid and executable, and a terminal only as its own
descriptors show one), so a script approving its own call is told apart from a person's
`spock-tui attach` on a terminal."""
import asyncio
import json
import os

import pytest
from conftest import call, start_instance
from mcp import Client
from test_attach import attached, audit_records

pytestmark = pytest.mark.anyio

NOTES = {"packageName": "com.example.notes"}


async def test_the_same_users_self_approval_is_recorded_as_the_process_that_made_it(tmp_path):
    # The call waits for someone to attach (headless `serve` would deny it at once).
    inst = start_instance(tmp_path, "--demo", config="[safety]\nwait_for_attach = true\n")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            task = asyncio.create_task(c.call_tool("android_uninstall_app", NOTES))
            # The agent's own process: reads the credential (same user), attaches, approves.
            agent, welcome = await attached(inst)
            you = welcome["you"]
            me = os.readlink("/proc/self/exe")
            assert you.startswith(f"attach pid {os.getpid()} uid {os.getuid()} ({me})"), you
            # It claimed /dev/pts/test: shown as a claim, never as its terminal.
            assert "(claimed /dev/pts/test)" in you and " on /dev/pts/test" not in you, you
            ask = (await agent.until("confirm_asked", timeout=10))["ask"]
            await agent.send(type="displayed", call_id=ask["call_id"])
            await asyncio.sleep(0.7)
            await agent.send(type="decide", call_id=ask["call_id"], approve=True)
            r = await asyncio.wait_for(task, 15)
            assert not r.is_error, r
            err, left = await call(c, "android_list_packages", {"filter": "com.example.notes"})
            assert not err and left["count"] == 0, left
            agent.close()
        recs = [r for r in audit_records(inst) if r["tool"] == "android_uninstall_app" and r["outcome"] == "ok"]
        assert recs and recs[-1]["decider"] == you, recs
        # A key at another process, not the serving process's own keyboard.
        assert recs[-1]["decision"] == {"approved": True, "by": "attached"}, recs[-1]
    finally:
        inst.stop()


async def test_a_rotated_control_credential_locks_out_whoever_holds_the_old_one(tmp_path):
    import subprocess
    from conftest import EXE
    from test_attach import Raw, credential

    inst = start_instance(tmp_path, "--demo")
    try:
        old = credential(inst)
        holder, _ = await attached(inst)
        r = subprocess.run([EXE, "token", "rotate", "--control"], env={**os.environ, "SPOCK_TUI_HOME": str(inst.home)},
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        assert credential(inst) != old
        # The terminal attached with the old one is told and detached (within the 5 s tick).
        bye = await holder.until("goodbye", timeout=15)
        assert "rotated" in bye["reason"], bye
        # The old credential no longer attaches; the new one does.
        c = await Raw.open(inst)
        m = await c.hello(inst, credential=old)
        assert m["type"] == "error" and m["code"] == "unauthorized", m
        again, welcome = await attached(inst)
        assert welcome["type"] == "welcome"
        again.close()
    finally:
        inst.stop()


def test_doctor_says_who_can_reach_the_sockets_and_the_adb_server(tmp_path):
    import subprocess
    from conftest import EXE

    home = tmp_path / "home"
    run = home / "run"
    run.mkdir(parents=True)
    env = {**os.environ, "SPOCK_TUI_HOME": str(home), "ANDROID_ADB_SERVER_PORT": "1"}
    os.chmod(run, 0o700)
    r = subprocess.run([EXE, "doctor"], env=env, capture_output=True, text=True, timeout=60)
    assert f"{run} is 700" in r.stdout and "takes uid" in r.stdout, r.stdout
    assert "any local user, and any sandbox with this machine's network, can use it" in r.stdout and "SECURITY.md" in r.stdout, r.stdout
    os.chmod(run, 0o755)
    r = subprocess.run([EXE, "doctor"], env=env, capture_output=True, text=True, timeout=60)
    assert "other users can reach the MCP and attach sockets" in r.stdout, r.stdout
    assert r.returncode != 0


async def test_a_terminal_rotates_the_credential_keeps_its_place_and_the_others_are_detached(tmp_path):
    # Settings' K sends `rotate_credential`: the asking terminal stays attached, every other
    # one is told and detached, the old credential proves nothing any more, and the rotation is
    # on record as the person's act at that terminal.
    from test_attach import Raw, credential

    inst = start_instance(tmp_path, "--demo")
    try:
        old = credential(inst)
        person, welcome = await attached(inst)
        other, _ = await attached(inst)
        await person.send(type="rotate_credential")
        note = await person.until("notice", timeout=10)
        assert "control credential rotated" in note["message"], note
        assert credential(inst) != old
        bye = await other.until("goodbye", timeout=15)
        assert "rotated" in bye["reason"], bye
        # The asking terminal is still served after the detaching tick (5 s).
        await asyncio.sleep(6)
        await person.send(type="screen", name="status")
        await person.send(type="access", change={"change": "set_enabled", "tool": "android_get_battery_info", "on": False})
        m = await person.until("notice", timeout=10)
        assert "goodbye" != m["type"], m
        c = await Raw.open(inst)
        m = await c.hello(inst, credential=old)
        assert m["type"] == "error" and m["code"] == "unauthorized", m
        person.close()
        recs = [r for r in audit_records(inst) if r["tool"] == "control_credential"]
        assert recs and recs[-1]["decider"] == welcome["you"], recs
        assert recs[-1]["decision"] == {"approved": True, "by": "attached"}, recs[-1]
        assert old not in json.dumps(recs) and credential(inst) not in json.dumps(recs)
    finally:
        inst.stop()
