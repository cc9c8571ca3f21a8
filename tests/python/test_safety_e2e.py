"""The safety model and cancellation through real clients on the demo device."""
import json
import select
import subprocess
import time

import anyio
import pytest
from conftest import EXE, call, start_instance
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio


def audit_records(inst):
    return [json.loads(l) for l in (inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines() if l.strip()]


async def test_disabling_mid_session_refuses_then_allow_all_runs(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            err, r = await call(c, "android_get_battery_info")
            assert not err
            cfg = inst.home / "config" / "config.toml"
            cfg.write_text('[access]\ndisabled = ["android_get_battery_info"]\n')
            deadline = time.monotonic() + 5
            while True:
                err, r = await call(c, "android_get_battery_info")
                if err:
                    break
                assert time.monotonic() < deadline, "the running instance never saw the switch"
                await anyio.sleep(0.2)
            assert r["kind"] == "disabled" and "android_get_battery_info" in r["error"] and "access.disabled" in r["error"]
            # still listed and described
            names = {t.name for t in (await c.list_tools()).tools}
            assert "android_get_battery_info" in names
    finally:
        inst.stop()
    refused = [a for a in audit_records(inst) if a["outcome"] == "refused"]
    assert refused and refused[-1]["tool"] == "android_get_battery_info"
    before = cfg.read_text()
    inst2 = start_instance(tmp_path, "--demo", "--allow-all", home=inst.home)
    try:
        async with Client(inst2.relay_params(), mode="legacy") as c:
            err, r = await call(c, "android_get_battery_info")
            assert not err, r
            err, st = await call(c, "spock_get_status")
            assert st["access"]["allowAll"] is True and "android_get_battery_info" in st["access"]["disabled"]
            err, r = await call(c, "android_uninstall_app", {"packageName": "com.example.notes"})
            assert err and r["kind"] == "denied"  # --allow-all never lifts a confirmation
    finally:
        inst2.stop()
    assert cfg.read_text() == before


def test_stdio_cancellation_suppresses_the_response(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    p = subprocess.Popen([EXE, "relay", str(inst.descriptor_path)], env=inst.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        def send(m):
            p.stdin.write(json.dumps(m).encode() + b"\n")
            p.stdin.flush()

        def read(timeout):
            r, _, _ = select.select([p.stdout], [], [], timeout)
            return json.loads(p.stdout.readline()) if r else None

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
        assert read(10)["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "android_wait_for_element", "arguments": {"element": "never there", "timeoutMs": 20000}}})
        time.sleep(1.0)
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "test"}})
        send({"jsonrpc": "2.0", "id": 8, "method": "ping"})
        msg = read(10)
        assert msg is not None and msg["id"] == 8, msg  # the session lives; nothing came for id 7
        assert read(2) is None
    finally:
        p.stdin.close()
        p.wait(timeout=5)
        inst.stop()
    rec = [a for a in audit_records(inst) if a["tool"] == "android_wait_for_element"]
    assert rec and rec[-1]["outcome"] == "cancelled" and rec[-1]["durationMs"] < 10000


async def test_http_cancellation_stops_the_tool(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        for mode in ("auto", "legacy"):
            async with Client(streamable_http_client(inst.url, http_client=inst.http_client()), mode=mode) as c:
                with anyio.move_on_after(1.0):
                    await c.call_tool("android_wait_for_element", {"element": "never there", "timeoutMs": 20000})
                    raise AssertionError("the call should not have returned")
                err, r = await call(c, "spock_get_status")
                assert not err
            await anyio.sleep(0.5)
    finally:
        inst.stop()
    rec = [a for a in audit_records(inst) if a["tool"] == "android_wait_for_element"]
    assert len(rec) == 2 and all(a["outcome"] == "cancelled" and a["durationMs"] < 10000 for a in rec), rec


async def test_redaction_hides_secrets_from_agents_not_from_the_person(tmp_path):
    import shutil

    from conftest import ROOT, RealAdb, have_adb

    if not have_adb():
        pytest.skip("no adb binary")
    scen = tmp_path / "scen"
    shutil.copytree(ROOT / "assets" / "demo", scen)
    toml = (scen / "demo.toml").read_text()
    toml += '\n[[logcat]]\nlevel = "W"\ntag = "Auth"\nmessage = "retrying https://api.example/login?user=bob&password=hunter2xyz"\n'
    (scen / "demo.toml").write_text(toml)
    adb = RealAdb(tmp_path, scenarios=[scen / "demo.toml"])
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            res = await c.call_tool("android_get_logcat", {"tag": "Auth"})
            text = res.content[0].text
            assert "hunter2xyz" not in text, text
            assert "redacted" in text
            assert "hunter2xyz" not in json.dumps(res.structured_content)
    finally:
        inst.stop()
        adb.close()
    # The person's record keeps what the agent was not shown.
    rec = [a for a in audit_records(inst) if a["tool"] == "android_get_logcat"]
    assert "hunter2xyz" in json.dumps(rec[-1]["result"])
