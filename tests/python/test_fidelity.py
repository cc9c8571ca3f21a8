"""Issue 21 through the real Python MCP SDK against the built-in virtual device (`--demo`): the
demo's deep-link and AppFunctions paths end to end, and a 2026-07-28 client that never named
itself is "unknown" everywhere."""
import json

import pytest
from conftest import start_instance
from protocol_common import stateless_post
from mcp import Client

pytestmark = pytest.mark.anyio


@pytest.fixture
def demo(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    yield inst
    inst.stop()


async def ok(c, name, args=None):
    r = await c.call_tool(name, args or {})
    assert r.is_error is False, (name, r.structured_content)
    return r.structured_content


async def err(c, name, args=None):
    r = await c.call_tool(name, args or {})
    assert r.is_error is True, (name, r.structured_content)
    return r.structured_content


async def test_deep_links_and_intents_naming_a_package_open_it(demo):
    async with Client(demo.relay_params(), mode="legacy") as c:
        r = await ok(c, "android_open_deep_link", {"uri": "shop://product/42", "packageName": "com.example.shop"})
        assert r["activity"] == "com.example.shop/.ProductActivity", r
        now = await ok(c, "android_get_current_activity")
        assert now["activity"].endswith("ProductActivity"), now
        r = await ok(c, "android_open_intent", {"action": "android.intent.action.VIEW",
                                                 "data": "shop://product/7", "packageName": "com.example.shop"})
        assert r["activity"] == "com.example.shop/.ProductActivity", r
        e = await err(c, "android_open_deep_link", {"uri": "shop://product/42", "packageName": "com.example.notes"})
        assert "unable to resolve" in e["error"], e


async def test_app_functions_filter_on_schema_and_execute(demo):
    async with Client(demo.relay_params(), mode="legacy") as c:
        notes = await ok(c, "android_list_app_functions", {"schemaCategory": "notes"})
        assert {f["functionId"] for f in notes["functions"]} == {"createNote", "searchNotes", "deleteNote"}
        create = await ok(c, "android_list_app_functions", {"schemaName": "createNote", "minSchemaVersion": 2})
        assert [f["functionId"] for f in create["functions"]] == ["createNote"]
        assert {p["name"] for p in create["functions"][0]["parameters"]} == {"title", "body"}
        assert (await ok(c, "android_list_app_functions", {"minSchemaVersion": 3}))["count"] == 0
        r = await ok(c, "android_call_app_function", {"packageName": "com.example.notes", "functionId": "searchNotes",
                                                      "arguments": {"query": "milk"}})
        assert r["result"] == '1 note matches "milk": Groceries', r


def stateless_call(inst, name, meta):
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": name, "arguments": {}, "_meta": meta}}
    return stateless_post(inst, body, name)


async def test_a_client_that_never_named_itself_is_unknown(demo):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    reply = stateless_call(demo, "spock_get_status", meta)
    assert "result" in reply, reply
    status = reply["result"]["structuredContent"]
    names = [c["name"] for c in status["clients"]]
    assert "rmcp" not in names, status["clients"]
    demo.stop()  # flushes the audit trail
    audit = [json.loads(l) for l in (demo.home / "data" / "audit" / "audit.jsonl").read_text().splitlines()]
    mine = [a for a in audit if a.get("tool") == "spock_get_status"]
    assert mine and all(a["client"] == "unknown" for a in mine), mine


async def test_accented_text_is_typed_through_the_virtual_keyboard_and_the_rest_refused(demo):
    async with Client(demo.relay_params(), mode="legacy") as c:
        await ok(c, "android_launch_app", {"packageName": "com.example.shop"})
        r = await ok(c, "android_input_text_into_element", {"element": "login_email", "text": "Café Niño çà",
                                                            "clear": True})
        assert r["verified"] is True and "fieldText" not in r, r  # exactly the text typed
        check = await ok(c, "android_assert_text", {"element": "login_email", "expectedText": "Café Niño çà"})
        assert check["passed"], check
        e = await err(c, "android_input_text_into_element", {"element": "login_email", "text": "smørrebrød"})
        assert e["kind"] == "refused" and "printable ASCII" in e["error"], e
        assert "android_" not in e["error"], "the refusal never sends the agent to another tool that refuses it"
        e = await err(c, "android_input_text", {"text": "😀"})
        assert "virtual keyboard" in e["error"], e
