"""Batch tasks through the real Python MCP SDK over the relay, on the demo device: a saved
task runs in the background while android_batch_status follows it, the history keeps each
step's result, the export unzips to the record and the screenshot, and a destructive step
with nobody to approve is denied and stops the run."""
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


def props(tool) -> set:
    return set((tool.input_schema or {}).get("properties", {}))


def login_steps(listed: dict) -> list:
    """Sign in with the element tools when this build has them; else reach a second screen
    with the tools every build has."""
    tap, typ = listed.get("android_tap_element"), listed.get("android_input_text_into_element")
    if tap and typ and "element" in props(tap) and {"element", "text"} <= props(typ):
        return [
            {"tool": "android_input_text_into_element", "arguments": {
                "element": "login_email", "text": "me@example.com",
                "fields": [{"element": "login_password", "text": "hunter2"}]}},
            {"tool": "android_tap_element", "arguments": {"element": "Sign in"}, "waitMs": 1500},
            {"tool": "android_assert_visible", "arguments": {"element": "Espresso Machine"}},
        ]
    return [
        {"tool": "android_wait_for_element", "arguments": {"element": "Sign in", "timeoutMs": 3000}},
        {"tool": "android_open_deep_link", "arguments": {"uri": "shop://product/42"}, "waitMs": 1500},
        {"tool": "android_assert_visible", "arguments": {"element": "Add to cart"}},
    ]


async def wait_run(c, run_id, deadline_s=30):
    deadline = time.monotonic() + deadline_s
    while True:
        err, rec = await call(c, "android_batch_history_get", {"runId": run_id})
        assert not err, rec
        if rec["state"] != "processing":
            return rec
        assert time.monotonic() < deadline, rec
        await anyio.sleep(0.1)


async def test_saved_task_runs_async_with_status_history_and_export(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            listed = {t.name: t for t in (await c.list_tools()).tools}
            steps = [
                {"tool": "android_launch_app", "arguments": {"packageName": "com.example.shop"}, "waitMs": 1500},
                *login_steps(listed),
                {"tool": "android_take_screenshot", "arguments": {"format": "png"}},
            ]
            assert len(steps) == 5
            err, saved = await call(c, "android_batch_save", {"id": "shop_login", "name": "Shop login", "steps": steps})
            assert not err, saved
            # Saved by an agent, and marked so wherever the person sees the task (issue 31).
            assert saved["created"] is True and saved["task"]["source"] == "agent"
            # A step the tool itself would reject is refused at save time, naming the step.
            err, bad = await call(c, "android_batch_save", {"name": "bad", "steps": [{"tool": "android_launch_app", "arguments": {}}]})
            assert err and "step 1" in bad["error"] and "packageName" in bad["error"]
            err, got = await call(c, "android_batch_get", {"id": "shop_login"})
            assert not err and got["steps"] == [{k: v for k, v in s.items()} for s in steps]
            # `taskId`, as status and run history name it, is the schema's name; `id` still works.
            err, again = await call(c, "android_batch_get", {"taskId": "shop_login"})
            assert not err and again == got, again
            listed = {t.name: t for t in (await c.list_tools()).tools}
            assert set(listed["android_batch_run"].input_schema["properties"]) >= {"taskId"}, listed["android_batch_run"].input_schema
            err, lst = await call(c, "android_batch_list")
            assert [t["id"] for t in lst["tasks"]] == ["shop_login"] and lst["tasks"][0]["stepCount"] == 5

            t0 = time.monotonic()
            err, started = await call(c, "android_batch_run", {"taskId": "shop_login"})
            assert not err, started
            assert started["status"] == "processing" and time.monotonic() - t0 < 1.5, "run must return at once"
            run_id = started["runId"]
            seen = set()
            while True:
                err, st = await call(c, "android_batch_status")
                assert not err
                if st["state"] == "idle":
                    break
                assert st["currentRunId"] == run_id and st["currentTaskId"] == "shop_login" and st["totalSteps"] == 5
                seen.add(st["currentStepIndex"])
                assert time.monotonic() - t0 < 30
                await anyio.sleep(0.1)
            assert {0, 2} <= seen, seen

            rec = await wait_run(c, run_id)
            assert rec["state"] == "succeeded", json.dumps(rec)[:2000]
            assert [s["tool"] for s in rec["steps"]] == [s["tool"] for s in steps]
            assert all(s["outcome"] == "ok" and "result" in s and s["durationMs"] >= 0 for s in rec["steps"])
            assert rec["steps"][0]["result"]["package"] == "com.example.shop"
            assert rec["steps"][3]["result"]["passed"] is True
            shot = rec["steps"][4]
            assert shot["result"]["screenWidth"] == 1080 and shot["images"] == ["step-05-1.png"]

            err, hist = await call(c, "android_batch_history_list")
            assert hist["runs"][0]["runId"] == run_id and hist["runs"][0]["stepsRun"] == 5

            err, exp = await call(c, "android_batch_history_export", {"runId": run_id})
            assert not err and exp["runId"] == run_id
            z = zipfile.ZipFile(io.BytesIO(base64.b64decode(exp["zipBase64"])))
            assert set(z.namelist()) == {"run.json", "step-05-1.png"}
            assert z.getinfo("run.json").compress_type == zipfile.ZIP_DEFLATED
            inner = json.loads(z.read("run.json"))
            assert inner["runId"] == run_id and len(inner["steps"]) == 5
            assert z.read("step-05-1.png")[:8] == b"\x89PNG\r\n\x1a\n"

            # Deleting a run is destructive: headless, nobody approves, the run stays.
            err, r = await call(c, "android_batch_history_delete", {"runId": run_id})
            assert err and r["kind"] == "denied"
            err, _ = await call(c, "android_batch_history_get", {"runId": run_id})
            assert not err
    finally:
        inst.stop()
    audit = [json.loads(l) for l in (inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines() if l.strip()]
    linked = [a for a in audit if a.get("batchRun") == run_id]
    # Each step, then the record that closes the run with its final state.
    assert [a["tool"] for a in linked] == [s["tool"] for s in steps] + ["android_batch_run_end"]
    assert all(a["transport"] == "batch" for a in linked)
    assert linked[-1]["outcome"] == "ok" and linked[-1]["result"]["state"] == "succeeded"


async def test_destructive_step_is_denied_headless_and_stops_the_run(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            err, started = await call(c, "android_batch_run_inline", {"name": "remove notes", "steps": [
                {"tool": "android_launch_app", "arguments": {"packageName": "com.example.notes"}},
                {"tool": "android_uninstall_app", "arguments": {"packageName": "com.example.notes"}},
                {"tool": "android_take_screenshot", "arguments": {}},
            ]})
            assert not err and started["status"] == "processing", started
            rec = await wait_run(c, started["runId"])
            assert rec["state"] == "failed" and rec.get("taskId") is None
            assert [s["outcome"] for s in rec["steps"]] == ["ok", "denied", "skipped"]
            assert "nobody can approve" in rec["steps"][1]["error"]
            err, pk = await call(c, "android_list_packages", {"thirdPartyOnly": True})
            assert not err and "com.example.notes" in {p["package"] for p in pk["packages"]}
    finally:
        inst.stop()
