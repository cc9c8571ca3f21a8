"""Faults with the virtual device's switches and with the adb server killed mid-call, through
Debian's real adb and the Python SDK. Extends test_readonly.py's
`test_tool_errors_not_hangs_and_recovery` (hang on dumpsys, drop after 64 bytes, adb killed
between calls) with: refused opens, an offline device, replies slower than the command timeout,
a hang on uiautomator with calls in flight on other tools, and the adb server killed while a
call is running. Every call ends with a tool error within its timeout, the next call after
recovery succeeds, and the audit trail holds a record for each."""
import asyncio
import json
import time

import pytest
from conftest import call, start_instance
from mcp import Client

pytestmark = pytest.mark.anyio

COMMAND_TIMEOUT_S = 4.0
# A tool error must arrive within the command timeout plus this (adb round trips, the relay).
SLACK_S = 6.0


@pytest.fixture
def served(tmp_path, real_adb):
    inst = start_instance(
        tmp_path, "--adb", real_adb.endpoint(), config=f"[device]\ncommand_timeout_ms = {int(COMMAND_TIMEOUT_S * 1000)}\n"
    )
    yield inst, real_adb
    inst.stop()


async def timed(c, tool, args=None):
    t0 = time.monotonic()
    err, r = await asyncio.wait_for(call(c, tool, args), COMMAND_TIMEOUT_S + SLACK_S + 5)
    return err, r, time.monotonic() - t0


async def until_ok(c, tool, deadline_s=20.0):
    """The next call after recovery succeeds (adb may need a moment to see the device again)."""
    deadline = time.monotonic() + deadline_s
    while True:
        err, r, _ = await timed(c, tool)
        if not err:
            return r
        assert time.monotonic() < deadline, f"{tool} did not recover: {r}"
        await asyncio.sleep(0.5)


async def test_every_fault_ends_in_a_tool_error_then_recovers(served):
    inst, adb = served
    sim = adb.sim_serials()[0]
    expected = []  # (tool, outcome) in call order, for the audit trail
    async with Client(inst.relay_params(), mode="legacy") as c:
        await until_ok(c, "android_get_battery_info")
        expected.append(("android_get_battery_info", "ok"))
        for fault, tool in (
            ({"fault": "refuse"}, "android_get_battery_info"),
            ({"fault": "delay", "ms": int(COMMAND_TIMEOUT_S * 1000) + 3000}, "android_get_current_activity"),
            ({"fault": "hang", "command": "uiautomator"}, "android_get_ui_tree"),
            ({"fault": "drop", "bytes": 0}, "android_get_battery_info"),
            ({"fault": "offline"}, "android_get_battery_info"),
        ):
            adb.fault(sim, **fault)
            err, r, took = await timed(c, tool)
            assert err, (fault, r)
            assert took <= COMMAND_TIMEOUT_S + SLACK_S, (fault, took)
            assert r.get("error"), (fault, r)
            expected.append((tool, None))
            adb.fault(sim, fault="online" if fault["fault"] == "offline" else "clear")
            adb.fault(sim, fault="clear")
            await until_ok(c, tool)
            expected.append((tool, "ok"))
    inst.stop()  # flushes the audit trail
    records = [json.loads(l) for l in (inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines()]
    failed = [r for r in records if r["outcome"] in ("error", "timeout")]
    assert len(failed) >= 5, [(r["tool"], r["outcome"]) for r in records]
    assert {"timeout", "error"} <= {r["outcome"] for r in failed}
    assert records[-1]["outcome"] == "ok"
    for r in failed:
        assert r["error"] and r["durationMs"] <= (COMMAND_TIMEOUT_S + SLACK_S) * 1000, r


async def test_hang_on_one_command_does_not_stall_other_calls(served):
    inst, adb = served
    sim = adb.sim_serials()[0]
    async with Client(inst.relay_params(), mode="legacy") as c:
        await until_ok(c, "android_get_battery_info")
        adb.fault(sim, fault="hang", command="uiautomator")
        t0 = time.monotonic()
        hung = [asyncio.create_task(timed(c, "android_get_ui_tree")) for _ in range(4)]
        await asyncio.sleep(0.3)
        # Meanwhile other tools on the same device answer normally.
        for _ in range(3):
            err, r, took = await timed(c, "android_get_battery_info")
            assert not err and took < COMMAND_TIMEOUT_S, (r, took)
        for t in hung:
            err, r, took = await t
            assert err and r["kind"] == "timeout", r
        assert time.monotonic() - t0 <= COMMAND_TIMEOUT_S + SLACK_S
        adb.fault(sim, fault="clear")
        await until_ok(c, "android_get_ui_tree")


async def test_adb_server_killed_mid_call(served):
    inst, adb = served
    sim = adb.sim_serials()[0]
    async with Client(inst.relay_params(), mode="legacy") as c:
        await until_ok(c, "android_get_battery_info")
        # Slow replies keep the call in flight while the adb server goes away under it.
        adb.fault(sim, fault="delay", ms=2500)
        in_flight = asyncio.create_task(timed(c, "android_get_battery_info"))
        await asyncio.sleep(1.0)
        adb.adb("kill-server")
        err, r, took = await in_flight
        assert err, r
        assert took <= COMMAND_TIMEOUT_S + SLACK_S, took
        # While it is down: an error naming the cause, promptly.
        err, r, took = await timed(c, "android_get_battery_info")
        assert err and took <= COMMAND_TIMEOUT_S + SLACK_S, (r, took)
        adb.fault(sim, fault="clear")
        adb.adb("start-server")
        adb.adb("connect", adb.serials[0])
        adb.wait_online()
        await until_ok(c, "android_get_battery_info")
    inst.stop()
    records = [json.loads(l) for l in (inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines()]
    outcomes = [r["outcome"] for r in records]
    assert outcomes.count("ok") >= 2 and sum(o in ("error", "timeout") for o in outcomes) >= 2, outcomes
    assert outcomes[-1] == "ok"
