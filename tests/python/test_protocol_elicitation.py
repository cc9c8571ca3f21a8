"""Approval through the MCP client (issue 20), opt-in with `[confirm] via_client = true`: with
no control centre attached, headless `serve` asks a destructive call's approval through a client
that declared elicitation, showing what the modal shows; default no, the same timeout, the answer
and who gave it audited. 2025-era sessions get an `elicitation/create` request; 2026-07-28 gets
the multi-round-trip request (an `input_required` answer, then the client's retry with the
answer and the `requestState`), which the Python SDK drives by itself. A late answer approves
nothing; clients without elicitation and a server with the switch off keep the denial. The
attacks on `requestState` (another call's, a replay, a forged one) are in
test_protocol_elicitation_rounds.py."""
import json
import time

import anyio
import mcp_types as types
import pytest
from conftest import call, start_instance
from protocol_common import ERAS, connected

pytestmark = pytest.mark.anyio

VIA_CLIENT = "[confirm]\nvia_client = true\n[safety]\nconfirm_timeout_secs = 3\n"
NOTES = {"packageName": "com.example.notes"}


def audit(inst, tool):
    path = inst.home / "data" / "audit" / "audit.jsonl"
    out = []
    for line in path.read_text().splitlines() if path.exists() else []:
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if r.get("tool") == tool:
            out.append(r)
    return out


def answering(asked, answer):
    """An elicitation callback that notes each question and answers as `answer["how"]` says:
    decline, approve, or approve after the 3 s timeout ("late")."""

    async def on_elicit(ctx, params):
        asked.append(params)
        if answer["how"] == "late":
            await anyio.sleep(5)  # past the 3 s timeout
            return types.ElicitResult(action="accept", content={"approve": True})
        if answer["how"] == "approve":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    return on_elicit


async def installed(c):
    err, r = await call(c, "android_list_packages", {"filter": "com.example.notes"})
    assert not err, r
    return r["count"] == 1


@pytest.mark.parametrize("transport,mode", ERAS)
async def test_decline_late_and_approve_through_the_client(tmp_path, transport, mode):
    """2026-07-28 (http auto) asks through `input_required` rounds, which the SDK drives."""
    inst = start_instance(tmp_path, "--demo", config=VIA_CLIENT)
    asked = []
    answer = {"how": "decline"}
    on_elicit = answering(asked, answer)

    try:
        async with connected(inst, transport, mode, elicitation_callback=on_elicit) as c:
            assert (c.protocol_version == "2026-07-28") == (mode == "auto")
            err, r = await call(c, "android_uninstall_app", NOTES)
            assert err and r["kind"] == "denied" and "declined through the MCP client" in r["error"], r
            msg = asked[-1].message
            for part in ("android_uninstall_app", "com.example.notes", "default is no", "sim-1"):
                assert part in msg, (part, msg)
            schema = asked[-1].requested_schema
            assert schema["properties"]["approve"]["default"] is False, schema
            assert await installed(c)

            answer["how"] = "late"
            started = time.monotonic()
            err, r = await call(c, "android_uninstall_app", NOTES)
            assert err and r["kind"] == "denied" and "timed out" in r["error"], r
            assert time.monotonic() - started < 30
            await anyio.sleep(3)  # the late yes has arrived by now; it runs nothing
            assert await installed(c)

            answer["how"] = "approve"
            err, r = await call(c, "android_uninstall_app", NOTES)
            assert not err, r
            assert not await installed(c)
        recs = audit(inst, "android_uninstall_app")
        by = [(r["decision"]["by"], r["decision"]["approved"], r["outcome"]) for r in recs]
        late = [("timeout", False, "denied")]
        if mode == "auto":
            # The asked call expired (recorded when it did), then its late retry was refused.
            late.append(("timeout", False, "denied"))
            assert "timed out before this retry" in recs[2]["error"], recs[2]
        # The approved call: its started record (before it ran), then its ending.
        assert by == [("client", False, "denied"), *late, ("client", True, "started"), ("client", True, "ok")], by
        assert recs[-1]["started"] == recs[-2]["seq"], recs
        how = "input_required" if mode == "auto" else "asked in its session"
        for r in (recs[0], recs[-1]):
            assert "elicitation" in r["decider"] and "mcp" in r["decider"].lower(), r
            assert how in r["decider"], r
        assert recs[-1]["arguments"] == NOTES, recs[-1]
    finally:
        inst.stop()


async def test_clients_without_elicitation_keep_the_denial(tmp_path):
    inst = start_instance(tmp_path, "--demo", config=VIA_CLIENT)
    try:
        async with connected(inst, "stdio", "legacy") as c:
            err, r = await call(c, "android_uninstall_app", NOTES)
            assert err and r["kind"] == "denied" and "nobody can approve" in r["error"], r
    finally:
        inst.stop()


async def test_off_by_default_in_both_eras(tmp_path):
    asked = []

    async def on_elicit(ctx, params):
        asked.append(params)
        return types.ElicitResult(action="accept", content={"approve": True})

    inst = start_instance(tmp_path, "--demo")
    try:
        for transport, mode in (("stdio", "legacy"), ("http", "auto")):
            async with connected(inst, transport, mode, elicitation_callback=on_elicit) as c:
                err, r = await call(c, "android_uninstall_app", NOTES)
                assert err and r["kind"] == "denied" and "nobody can approve" in r["error"], r
                assert await installed(c)
    finally:
        inst.stop()
    assert asked == []


async def test_2026_clients_without_elicitation_keep_the_denial(tmp_path):
    inst = start_instance(tmp_path, "--demo", config=VIA_CLIENT)
    try:
        async with connected(inst, "http", "auto") as c:
            assert c.protocol_version == "2026-07-28"
            err, r = await call(c, "android_uninstall_app", NOTES)
            assert err and r["kind"] == "denied" and "nobody can approve" in r["error"], r
            assert await installed(c)
    finally:
        inst.stop()
