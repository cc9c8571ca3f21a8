"""Issue 21 through the real Python MCP SDK against the built-in virtual device (`--demo`): the
demo's deep-link and AppFunctions paths end to end, and a 2026-07-28 client that never named
itself is "unknown" everywhere. Then screens uiautomator cannot read, through Debian's adb."""
import json
import pathlib
import shutil

import anyio
import pytest
from conftest import RealAdb, have_adb, start_instance
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


def login_marked(tmp_path, key, idle_timeout_ms=10_000):
    """The demo scenario with `key = true` on its login screen (`animating`: never idle, as a
    video or a spinner; `secure`: FLAG_SECURE) and uiautomator's idle timeout set."""
    scen = tmp_path / "scen"
    shutil.copytree(pathlib.Path(__file__).resolve().parents[2] / "assets" / "demo", scen)
    toml = (scen / "demo.toml").read_text()
    assert '[device]\n' in toml and 'id = "login"\n' in toml
    toml = toml.replace("[device]\n", f"[device]\nidle_timeout_ms = {idle_timeout_ms}\n", 1)
    (scen / "demo.toml").write_text(toml.replace('id = "login"\n', f'id = "login"\n{key} = true\n', 1))
    return scen / "demo.toml"


def busy_login(tmp_path, idle_timeout_ms):
    return login_marked(tmp_path, "animating", idle_timeout_ms)


async def test_a_screen_that_never_goes_idle_is_named_and_a_wait_polls_through_it(tmp_path):
    """A screen that never stays still (a video, a spinner) cannot be read by `uiautomator
    dump`: it prints "ERROR: could not get idle state." on stderr and exits 0, as AOSP
    `DumpCommand` does. Through Debian's adb and the Python SDK: the launch still reports
    itself with the reason in `screenError`, a read gets a plain error naming what to do, and a
    wait keeps polling until its timeout and says why it never saw the element."""
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path, scenarios=[busy_login(tmp_path, 400)])
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            launched = await ok(c, "android_launch_app", {"packageName": "com.example.shop", "returnScreen": "tree"})
            assert launched["package"] == "com.example.shop", launched
            assert "never stayed still" in launched["screenError"], launched
            r = await c.call_tool("android_get_ui_tree", {})
            assert r.is_error is True
            said = " ".join(x.text for x in r.content if x.type == "text")
            assert "never stayed still" in said and "android_take_screenshot" in said, said
            r = await c.call_tool("android_wait_for_element", {"element": "Sign in", "timeoutMs": 900})
            assert r.is_error is True
            said = " ".join(x.text for x in r.content if x.type == "text")
            assert "did not appear within 900 ms" in said and "never stayed still" in said, said
    finally:
        inst.stop()
        adb.close()


async def test_two_clients_reading_one_phone_at_once_take_turns(tmp_path):
    """Android lets one UiAutomation connect at a time; a second `uiautomator dump` while one
    waits for idle fails with "UiAutomationService … already registered!". Two clients over the
    relay reading the same device at once (through Debian's adb) must each get the real answer,
    here that the screen never went idle, never the collision."""
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path, scenarios=[busy_login(tmp_path, 1500)])
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    said = []

    async def read(c):
        r = await c.call_tool("android_get_ui_tree", {})
        assert r.is_error is True
        said.append(" ".join(x.text for x in r.content if x.type == "text"))

    try:
        async with Client(inst.relay_params(), mode="legacy") as a, Client(inst.relay_params(), mode="legacy") as b:
            await ok(a, "android_launch_app", {"packageName": "com.example.shop"})
            async with anyio.create_task_group() as tg:
                tg.start_soon(read, a)
                tg.start_soon(read, b)
        assert len(said) == 2 and all("never stayed still" in x for x in said), said
    finally:
        inst.stop()
        adb.close()


async def test_a_protected_screen_is_captured_black_and_the_screenshot_says_why(tmp_path):
    """An app that forbids screenshots (FLAG_SECURE) is captured black while its tree reads;
    through Debian's adb and the Python SDK the screenshot carries a warning naming both causes
    of a black frame, and an ordinary screen none."""
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path, scenarios=[login_marked(tmp_path, "secure")])
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            home = await ok(c, "android_take_screenshot")
            assert "warning" not in home, home
            await ok(c, "android_launch_app", {"packageName": "com.example.shop"})
            shot = await ok(c, "android_take_screenshot")
            assert "black" in shot["warning"] and "FLAG_SECURE" in shot["warning"], shot
            tree = await ok(c, "android_get_ui_tree")
            assert "login_email" in json.dumps(tree), tree
    finally:
        inst.stop()
        adb.close()
