"""Attacks on 2026-07-28 approval through the client (issue 20), written as raw JSON-RPC over
HTTP as an agent that drives its own rounds would: the `requestState` of an `input_required`
answer is the client's to echo, so it is opaque, one-shot, bound to the call that was asked
(tool, arguments, client) and to the timeout. A retry with another call's state, a replay, a
forged state and a late one run nothing, and each is audited; a call asked and never retried is
recorded when it expires; the waiting calls are bounded per client."""
import json
import time

import pytest
from conftest import ROOT, RealAdb, have_adb, start_instance
from protocol_common import stateless_post

VIA_CLIENT = "[confirm]\nvia_client = true\n[safety]\nconfirm_timeout_secs = {secs}\n"
NOTES = {"packageName": "com.example.notes"}
KEY = "spock_approval"
YES = {KEY: {"action": "accept", "content": {"approve": True}}}
ELICIT = {"elicitation": {"form": {}}}


def meta(caps=ELICIT, client=("raw-agent", "1")):
    return {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": client[0], "version": client[1]},
            "io.modelcontextprotocol/clientCapabilities": caps}


def rpc(inst, name, args, state=None, responses=None, **kw):
    """One stateless tools/call; the JSON-RPC reply."""
    params = {"name": name, "arguments": args, "_meta": meta(**kw)}
    if state is not None:
        params["requestState"] = state
    if responses is not None:
        params["inputResponses"] = responses
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    return stateless_post(inst, body, name)


def asked(inst, args=NOTES, **kw):
    """The first round of a destructive call: its `input_required` answer."""
    reply = rpc(inst, "android_uninstall_app", args, **kw)
    res = reply["result"]
    assert res.get("resultType") == "input_required", reply
    form = res["inputRequests"][KEY]
    assert form["method"] == "elicitation/create", form
    return res["requestState"], form["params"]


def denied(reply, *words):
    res = reply["result"]
    assert res.get("isError") is True, reply
    sc = res["structuredContent"]
    assert sc["kind"] == "denied", sc
    for w in words:
        assert w in sc["error"], (w, sc)
    return sc


def installed(inst, package="com.example.notes"):
    res = rpc(inst, "android_list_packages", {"filter": package})["result"]
    assert not res.get("isError"), res
    return res["structuredContent"]["count"] == 1


def audit(inst, tool="android_uninstall_app"):
    path = inst.home / "data" / "audit" / "audit.jsonl"
    recs = [json.loads(l) for l in path.read_text().splitlines()] if path.exists() else []
    return [r for r in recs if r.get("tool") == tool]


@pytest.fixture
def inst(tmp_path):
    i = start_instance(tmp_path, "--demo", config=VIA_CLIENT.format(secs=3))
    yield i
    i.stop()


def test_another_calls_state_is_refused_and_voids_the_asked_call(inst):
    assert installed(inst) and installed(inst, "com.example.shop")
    state, form = asked(inst)
    assert "com.example.notes" in form["message"] and "default is no" in form["message"]
    # Opaque: nothing of the call in it, nothing an agent could edit.
    assert "notes" not in state and len(state) >= 32, state
    # Approval obtained for notes, retried for shop with the old state.
    denied(rpc(inst, "android_uninstall_app", {"packageName": "com.example.shop"}, state, YES),
           "requestState", "not that call", "arguments")
    assert installed(inst, "com.example.shop") and installed(inst)
    # The state was used up: the call it was asked for cannot use it now either.
    denied(rpc(inst, "android_uninstall_app", NOTES, state, YES), "already answered")
    assert installed(inst)
    # Same arguments, another client name, or another tool: refused the same way.
    state, _ = asked(inst)
    denied(rpc(inst, "android_uninstall_app", NOTES, state, YES, client=("other", "2")), "client")
    state, _ = asked(inst)
    denied(rpc(inst, "android_clear_app_data", NOTES, state, YES), "tool")
    assert installed(inst)
    recs = audit(inst)
    voided = [r for r in recs if "void" in (r.get("decider") or "")]
    assert len(voided) >= 2 and all(r["outcome"] == "denied" for r in voided), recs
    assert voided[0]["arguments"] == NOTES, voided[0]
    shop = [r for r in recs if r["arguments"] == {"packageName": "com.example.shop"}]
    assert shop and shop[0]["outcome"] == "denied" and "requestState" in shop[0]["error"], shop


def test_a_used_state_answers_once(inst):
    state, _ = asked(inst)
    reply = rpc(inst, "android_uninstall_app", NOTES, state, YES)
    assert not reply["result"].get("isError"), reply
    assert not installed(inst)
    denied(rpc(inst, "android_uninstall_app", NOTES, state, YES), "already answered")
    recs = audit(inst)
    # The approved call: its started record (before it ran), then its ending.
    assert [(r["outcome"], (r.get("decision") or {}).get("by")) for r in recs] == [
        ("started", "client"), ("ok", "client"), ("denied", None)], recs


def test_forged_states_and_unasked_answers_run_nothing(inst):
    for forged in ("garbage", "0" * 32, "", "../../etc/passwd"):
        denied(rpc(inst, "android_uninstall_app", NOTES, forged, YES), "not one this server issued")
    assert installed(inst)
    # An answer nobody asked for is not an approval: the call is asked as any other.
    state, _ = asked(inst, responses=YES)
    assert installed(inst)
    # A decline, and an answer under another key, deny.
    denied(rpc(inst, "android_uninstall_app", NOTES, state, {KEY: {"action": "decline"}}),
           "declined through the MCP client")
    state, _ = asked(inst)
    denied(rpc(inst, "android_uninstall_app", NOTES, state, {"other": YES[KEY]}))
    assert installed(inst)
    assert all(r["outcome"] != "ok" for r in audit(inst))


def test_never_retried_is_recorded_late_is_denied_and_waiting_is_bounded(tmp_path):
    inst = start_instance(tmp_path, "--demo", config=VIA_CLIENT.format(secs=2))
    try:
        state, _ = asked(inst)
        deadline = time.monotonic() + 30
        while not audit(inst) and time.monotonic() < deadline:
            time.sleep(0.2)
        recs = audit(inst)
        assert [(r["outcome"], r["decision"]["by"]) for r in recs] == [("denied", "timeout")], recs
        denied(rpc(inst, "android_uninstall_app", NOTES, state, YES), "timed out")
        assert installed(inst)
        assert audit(inst)[-1]["decision"]["by"] == "timeout"
        # Three calls of one client may wait; the fourth is refused before anyone is asked.
        for _ in range(3):
            asked(inst)
        reply = rpc(inst, "android_uninstall_app", NOTES)
        assert reply["result"].get("isError") and "too many calls waiting" in reply["result"]["structuredContent"]["error"], reply
        # Another client is not held back by it.
        asked(inst, client=("second", "1"))
    finally:
        inst.stop()
    assert installed_after_stop(inst)


def installed_after_stop(inst):
    """The calls still waiting when the server stopped were denied and recorded, not dropped."""
    recs = audit(inst)
    return len(recs) >= 6 and all(r["outcome"] != "ok" for r in recs)


def test_clients_that_did_not_declare_elicitation_are_not_asked(inst):
    for caps in ({}, {"elicitation": {"url": {}}}):
        reply = rpc(inst, "android_uninstall_app", NOTES, caps=caps)
        denied(reply, "nobody can approve")
    assert installed(inst)


def test_an_approval_for_one_device_runs_nothing_once_the_call_resolves_to_another(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    demo = ROOT / "assets" / "demo" / "demo.toml"
    adb = RealAdb(tmp_path, scenarios=[demo, demo])
    inst = start_instance(tmp_path, "--adb", adb.endpoint(), config=VIA_CLIENT.format(secs=20))
    try:
        a, b = adb.serials
        # A stateless request keeps no selection (issue 31): with both attached it must name one.
        res = rpc(inst, "android_select_device", {"serial": a})["result"]
        assert res.get("isError") and "keeps no selection" in res["structuredContent"]["error"], res
        # With `b` away, a call naming no device resolves to the only one, `a`.
        adb.adb("disconnect", b)
        deadline = time.monotonic() + 15
        while b in adb.adb("devices").stdout:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        state, form = None, None
        while state is None:
            try:
                state, form = asked(inst)
            except AssertionError:
                assert time.monotonic() < deadline, "the call never resolved to the one device left"
                time.sleep(0.2)
        assert a in form["message"], form["message"]
        # `b` comes back while the person reads the form: the call no longer resolves to `a`.
        adb.adb("connect", b)
        adb.wait_online()
        reply = rpc(inst, "android_uninstall_app", NOTES, state, YES)
        res = reply["result"]
        assert res.get("isError") and "resolves to" in res["structuredContent"]["error"], reply
        for serial in (a, b):
            res = rpc(inst, "android_list_packages", {"filter": "com.example.notes", "serial": serial})
            assert res["result"]["structuredContent"]["count"] == 1, res
        rec = audit(inst)[-1]
        assert rec["decision"] == {"approved": True, "by": "client"} and rec["outcome"] == "refused", rec
    finally:
        inst.stop()
        adb.close()
