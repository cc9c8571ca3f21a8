"""How batch runs end, through the real Python MCP SDK over the relay, against the virtual device
behind adbd reached by Debian's real `adb` server: android_batch_cancel interrupts a step that is
waiting and the run ends `cancelled` at that step; a run's time limit (capped by the configured
`batch.max_run_secs`) ends it `timed_out`; and a run whose destructive step was denied (headless:
nobody to ask) is never reported `succeeded`, even with `stopOnError: false` — not by status,
the history list or get, the export's run.json, nor the audit record that closes the run."""
import base64
import io
import json
import time
import zipfile

import anyio
import pytest
from conftest import call, start_instance
from mcp import Client

pytestmark = pytest.mark.anyio


async def wait_run(c, run_id, deadline_s=30):
    deadline = time.monotonic() + deadline_s
    while True:
        err, rec = await call(c, "android_batch_history_get", {"runId": run_id})
        assert not err, rec
        if rec["state"] != "processing":
            return rec
        assert time.monotonic() < deadline, rec
        await anyio.sleep(0.1)


async def wait_steps(c, run_id, n, deadline_s=20):
    deadline = time.monotonic() + deadline_s
    while True:
        err, rec = await call(c, "android_batch_history_get", {"runId": run_id})
        assert not err, rec
        if len(rec["steps"]) >= n:
            return rec
        assert time.monotonic() < deadline, rec
        await anyio.sleep(0.05)


def audit(inst) -> list:
    path = inst.home / "data" / "audit" / "audit.jsonl"
    return [json.loads(l) for l in path.read_text().splitlines() if l.strip()]


async def test_cancel_time_limit_and_honest_status_over_real_adb(tmp_path, real_adb):
    serial = real_adb.serials[0]
    inst = start_instance(tmp_path, "--adb", real_adb.endpoint(), config="[batch]\nmax_run_secs = 120\n")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            listed = {t.name: t for t in (await c.list_tools()).tools}
            cancel_tool = listed["android_batch_cancel"]
            assert cancel_tool.annotations.destructive_hint is False
            assert "runId" in cancel_tool.input_schema["properties"]

            # 1. Cancel a running task while its second step waits for an element that never comes.
            err, started = await call(c, "android_batch_run_inline", {"name": "waits", "steps": [
                {"tool": "android_press_key", "arguments": {"key": "HOME", "serial": serial}},
                {"tool": "android_wait_for_element", "arguments": {"element": "never there", "timeoutMs": 60000, "serial": serial}},
                {"tool": "android_take_screenshot", "arguments": {"serial": serial}},
            ]})
            assert not err and started["status"] == "processing", started
            assert started["timeLimitSecs"] == 120, started
            run_id = started["runId"]
            await wait_steps(c, run_id, 1)
            err, st = await call(c, "android_batch_status")
            assert st["state"] == "running" and st["currentRunId"] == run_id, st
            t0 = time.monotonic()
            err, out = await call(c, "android_batch_cancel", {})
            assert not err, out
            assert time.monotonic() - t0 < 20, "the waiting step was not interrupted"
            assert out["runId"] == run_id and out["state"] == "cancelled" and out["stoppedAtStep"] == 1, out
            rec = await wait_run(c, run_id)
            assert rec["state"] == "cancelled"
            assert [s["outcome"] for s in rec["steps"]] == ["ok", "cancelled", "skipped"]
            assert "at step 2 (android_wait_for_element)" in rec["stoppedReason"], rec["stoppedReason"]
            err, again = await call(c, "android_batch_cancel", {"runId": run_id})
            assert err and "not running" in again["error"], again

            # 2. The time limit: a run asking for 1 s stops in its 60 s pause as timed_out.
            err, started = await call(c, "android_batch_run_inline", {"name": "slow", "timeLimitSecs": 1, "steps": [
                {"tool": "android_press_key", "arguments": {"key": "HOME", "serial": serial}, "waitMs": 60000},
                {"tool": "android_take_screenshot", "arguments": {"serial": serial}},
            ]})
            assert not err and started["timeLimitSecs"] == 1, started
            limited = started["runId"]
            rec = await wait_run(c, limited)
            assert rec["state"] == "timed_out", rec
            assert rec["stoppedAtStep"] == 1 and "time limit of 1 s" in rec["stoppedReason"], rec
            assert [s["outcome"] for s in rec["steps"]] == ["ok", "skipped"]
            # Asking for more than the configured maximum gets the maximum, and says so.
            err, started = await call(c, "android_batch_run_inline", {"timeLimitSecs": 99999, "steps": [
                {"tool": "android_press_key", "arguments": {"key": "HOME", "serial": serial}, "waitMs": 60000},
                {"tool": "android_take_screenshot", "arguments": {"serial": serial}},
            ]})
            assert not err and started["timeLimitSecs"] == 120 and "batch.max_run_secs" in started["note"], started
            err, out = await call(c, "android_batch_cancel", {"runId": started["runId"]})
            assert not err and out["state"] == "cancelled", out

            # 3. A denied destructive step (headless: nobody to ask) with stopOnError: false.
            err, started = await call(c, "android_batch_run_inline", {"name": "remove notes", "steps": [
                {"tool": "android_launch_app", "arguments": {"packageName": "com.example.notes", "serial": serial}},
                {"tool": "android_uninstall_app", "arguments": {"packageName": "com.example.notes", "serial": serial}, "stopOnError": False},
                {"tool": "android_press_key", "arguments": {"key": "HOME", "serial": serial}},
            ]})
            assert not err, started
            denied = started["runId"]
            rec = await wait_run(c, denied)
            assert [s["outcome"] for s in rec["steps"]] == ["ok", "denied", "ok"]
            assert rec["state"] == "failed", rec
            assert rec["failedSteps"] == [1] and rec["stoppedReason"].startswith("step 2 (android_uninstall_app) denied"), rec
            err, st = await call(c, "android_batch_status")
            assert st["state"] == "idle" and st["lastRun"]["runId"] == denied and st["lastRun"]["state"] == "failed", st
            err, hist = await call(c, "android_batch_history_list")
            states = {r["runId"]: r["state"] for r in hist["runs"]}
            assert states[denied] == "failed" and states[run_id] == "cancelled" and states[limited] == "timed_out", states
            assert "succeeded" not in states.values(), states
            err, exp = await call(c, "android_batch_history_export", {"runId": denied})
            inner = json.loads(zipfile.ZipFile(io.BytesIO(base64.b64decode(exp["zipBase64"]))).read("run.json"))
            assert inner["state"] == "failed" and inner["failedSteps"] == [1]
            err, pk = await call(c, "android_list_packages", {"thirdPartyOnly": True, "serial": serial})
            assert not err and "com.example.notes" in {p["package"] for p in pk["packages"]}
    finally:
        inst.stop()
    trail = audit(inst)
    ends = {a["batchRun"]: a for a in trail if a["tool"] == "android_batch_run_end"}
    assert ends[denied]["outcome"] == "error" and ends[denied]["result"]["state"] == "failed"
    assert "denied" in ends[denied]["error"]
    assert ends[run_id]["outcome"] == "cancelled" and ends[limited]["outcome"] == "timeout"
    cancels = [a for a in trail if a["tool"] == "android_batch_cancel"]
    assert cancels and all(a["level"] == "safe_action" for a in cancels)
    step = [a for a in trail if a.get("batchRun") == run_id and a["tool"] == "android_wait_for_element"]
    assert step and step[0]["outcome"] == "cancelled"
