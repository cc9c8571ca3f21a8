"""Toolsets (issue 19): by default a client is listed only the core set plus
spock_list_toolsets / spock_enable_toolset. In a 2025-era session enabling a set lists it and
sends notifications/tools/list_changed; a 2026-07-28 request has no session, so its endpoint
(`/mcp?toolsets=…`) says what it is listed. A tool not listed cannot be called; the error names
its set. Sizes: the default tools/list line and the instructions stay within their budgets, and
every listed schema is valid JSON Schema with no untyped property."""
import json
import subprocess

import anyio
import jsonschema
import pytest
from conftest import EXE, start_instance
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.anyio

# Half of mobile-mcp 1.0.4's whole tools/list (27,569 characters), and the instructions' cap.
DEFAULT_LIST_BUDGET = 13_800
INSTRUCTIONS_BUDGET = 1_000
APPS_TOOL = "android_list_packages"


@pytest.fixture
def default(tmp_path):
    inst = start_instance(tmp_path, "--demo", toolsets=None)
    yield inst
    inst.stop()


def names(listed):
    return {t.name for t in listed.tools}


class ListChanged:
    """A message handler that counts notifications/tools/list_changed."""

    def __init__(self):
        self.seen = anyio.Event()
        self.count = 0

    async def __call__(self, message):
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self.count += 1
            self.seen.set()


def session_client(inst, transport, handler):
    if transport == "stdio":
        return Client(inst.relay_params(), mode="legacy", message_handler=handler)
    return Client(streamable_http_client(inst.url, http_client=inst.http_client()), mode="legacy",
                  message_handler=handler)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_session_enables_a_set_and_is_told_the_list_changed(default, transport):
    changed = ListChanged()
    async with session_client(default, transport, changed) as c:
        before = names(await c.list_tools())
        assert {"android_tap_element", "spock_list_toolsets", "spock_enable_toolset"} <= before
        assert APPS_TOOL not in before and "android_run_adb_command" not in before
        # Not listed, so not callable: the error names the set and how to enable it.
        with pytest.raises(MCPError) as e:
            await c.call_tool(APPS_TOOL, {})
        assert "`apps`" in e.value.error.message and "spock_enable_toolset" in e.value.error.message
        sets = (await c.call_tool("spock_list_toolsets", {})).structured_content["toolsets"]
        on = {s["name"]: s["on"] for s in sets}
        assert on["core"] and not on["apps"] and not on["shell"]
        assert all(s["tools"] > 0 and s["purpose"] for s in sets)

        r = await c.call_tool("spock_enable_toolset", {"toolset": "apps"})
        assert not r.is_error and r.structured_content["listChanged"] is True
        assert APPS_TOOL in r.structured_content["tools"]
        with anyio.fail_after(10):
            await changed.seen.wait()
        after = names(await c.list_tools(cache_mode="refresh"))
        assert APPS_TOOL in after and "android_uninstall_app" in after
        assert "android_run_adb_command" not in after, "only the set asked for"
        r = await c.call_tool(APPS_TOOL, {"thirdPartyOnly": True})
        assert not r.is_error, r.content

        # Enabling lists; it approves nothing: a destructive tool of the set still asks, and
        # headless `serve` with nobody attached denies it.
        r = await c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"})
        assert r.is_error and r.structured_content["kind"] == "denied"

        # Enabling again changes nothing and sends nothing.
        r = await c.call_tool("spock_enable_toolset", {"toolset": "apps"})
        assert r.structured_content["listChanged"] is False
        await anyio.sleep(0.3)
        assert changed.count == 1

    # Another session starts from the default again.
    async with session_client(default, transport, ListChanged()) as c:
        assert APPS_TOOL not in names(await c.list_tools())


async def test_stateless_requests_choose_their_sets_on_the_endpoint(default):
    http = default.http_client
    async with Client(streamable_http_client(default.url, http_client=http()), mode="auto") as c:
        assert c.protocol_version == "2026-07-28"
        assert APPS_TOOL not in names(await c.list_tools())
        with pytest.raises(MCPError) as e:
            await c.call_tool(APPS_TOOL, {})
        assert "`apps`" in e.value.error.message and "?toolsets=apps" in e.value.error.message
        # No session: a call cannot change what this client is listed.
        r = await c.call_tool("spock_enable_toolset", {"toolset": "apps"})
        assert r.is_error and "2026-07-28" in r.content[0].text and "?toolsets=" in r.content[0].text
        assert APPS_TOOL not in names(await c.list_tools(cache_mode="refresh"))
        listed = (await c.call_tool("spock_list_toolsets", {})).structured_content
        assert "?toolsets=" in listed["how"]

    async with Client(streamable_http_client(default.url + "?toolsets=apps,files", http_client=http()),
                      mode="auto") as c:
        listed = names(await c.list_tools())
        assert {APPS_TOOL, "android_pull_file", "android_tap_element"} <= listed
        assert "android_run_adb_command" not in listed
        r = await c.call_tool(APPS_TOOL, {"thirdPartyOnly": True})
        assert not r.is_error, r.content
        on = {s["name"]: s["on"] for s in (await c.call_tool("spock_list_toolsets", {})).structured_content["toolsets"]}
        assert on["apps"] and on["files"] and not on["shell"]

    # A name that is no toolset is the client's error, naming the sets there are.
    async with Client(streamable_http_client(default.url + "?toolsets=sudo", http_client=http()), mode="auto") as c:
        with pytest.raises(MCPError) as e:
            await c.list_tools()
        assert "sudo" in e.value.error.message and "appfunctions" in e.value.error.message


async def test_the_relay_asks_for_sets_for_its_client(default):
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=EXE, args=["relay", str(default.descriptor_path), "--toolsets", "debug"],
                                   env=default.env())
    async with Client(params, mode="legacy") as c:
        listed = names(await c.list_tools())
        assert "android_get_logcat" in listed and APPS_TOOL not in listed
    bad = subprocess.run([EXE, "relay", str(default.descriptor_path), "--toolsets", "sudo"], env=default.env(),
                         capture_output=True, text=True, timeout=30, input="")
    assert bad.returncode != 0 and "sudo" in bad.stderr


async def test_toolsets_all_lists_every_tool(tmp_path):
    inst = start_instance(tmp_path, "--demo", toolsets="all")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            listed = names(await c.list_tools())
            sets = (await c.call_tool("spock_list_toolsets", {})).structured_content["toolsets"]
            assert all(s["on"] for s in sets)
            assert len(listed) == sum(s["tools"] for s in sets)
            assert {APPS_TOOL, "android_run_adb_command", "android_batch_run", "spock_get_logs"} <= listed
    finally:
        inst.stop()


def raw_lines(inst):
    """The initialize and tools/list answers exactly as the server wrote them (as
    benches/context.py reads them)."""
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "budget", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]
    p = subprocess.Popen([EXE, "relay", str(inst.descriptor_path)], env=inst.env(), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    got = {}
    try:
        p.stdin.write("".join(json.dumps(m) + "\n" for m in msgs))
        p.stdin.flush()
        for _ in range(50):
            line = p.stdout.readline()
            if not line:
                break
            m = json.loads(line)
            if m.get("id") in (1, 2):
                got[m["id"]] = (line.rstrip("\n"), m)
            if len(got) == 2:
                return got[1], got[2]
    finally:
        p.kill()
        p.wait(timeout=10)
    raise AssertionError(f"no answers: {got}")


def test_default_list_and_instructions_fit_their_budgets(default):
    (_, init), (line, listed) = raw_lines(default)
    assert len(line) <= DEFAULT_LIST_BUDGET, f"default tools/list is {len(line)} characters"
    assert len(init["result"]["instructions"]) <= INSTRUCTIONS_BUDGET
    assert init["result"]["capabilities"]["tools"].get("listChanged") is True
    check_schemas(listed["result"]["tools"])


def test_every_schema_of_every_set_is_valid_and_typed(tmp_path):
    inst = start_instance(tmp_path, toolsets="all")
    try:
        _, (_, listed) = raw_lines(inst)
        assert len(listed["result"]["tools"]) > 60
        check_schemas(listed["result"]["tools"])
    finally:
        inst.stop()


def check_schemas(tools):
    """Each schema passes the JSON Schema 2020-12 meta-schema; no property schema is `{}` or
    has a `type` array (the MCP Inspector warns about both)."""
    for t in tools:
        for kind in ("inputSchema", "outputSchema"):
            schema = t[kind]
            jsonschema.Draft202012Validator.check_schema(schema)
            for prop, p in schema.get("properties", {}).items():
                where = f"{t['name']}.{kind}.{prop}"
                assert p != {}, f"{where} is untyped"
                assert "type" in p or all("type" in b for b in p.get("anyOf", [])) and p.get("anyOf"), where
                assert not isinstance(p.get("type"), list), f"{where}: type array"


def test_config_gives_one_client_its_sets(default):
    stdio = default.run("config", "--stdio", "--toolsets", "apps")
    assert stdio.returncode == 0, stdio.stderr
    args = json.loads(stdio.stdout)["mcpServers"]["spock-tui"]["args"]
    assert args[0] == "relay" and args[-2:] == ["--toolsets", "core,apps"]
    http = default.run("config", "--http", "--client", "cursor", "--toolsets", "all")
    assert http.returncode == 0, http.stderr
    assert json.loads(http.stdout)["mcpServers"]["spock-tui"]["url"].endswith("/mcp?toolsets=all")
    bad = default.run("config", "--stdio", "--toolsets", "sudo")
    assert bad.returncode != 0 and "sudo" in bad.stderr
