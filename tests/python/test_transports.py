"""The same core over every transport, through the real Python MCP SDK."""
import json

import pytest
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio


def check_status(result):
    assert result.is_error is False
    sc = result.structured_content
    assert sc["version"]
    assert sc["endpoints"]["http"].endswith("/mcp")
    assert sc["endpoints"]["stdio"].startswith(("unix:", "tcp:"))
    assert json.loads(result.content[0].text) == sc
    return sc


@pytest.mark.parametrize("mode,expected", [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
async def test_http_both_eras(instance, mode, expected):
    async with Client(streamable_http_client(instance.url, http_client=instance.http_client()), mode=mode) as c:
        assert c.protocol_version == expected
        tools = await c.list_tools()
        assert "spock_get_status" in {t.name for t in tools.tools}
        check_status(await c.call_tool("spock_get_status", {}))


async def test_legacy_sse(instance):
    async with sse_client(instance.base + "/sse", headers={"Authorization": f"Bearer {instance.token}"}) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            tools = await s.list_tools()
            assert len(tools.tools) > 0
            check_status(await s.call_tool("spock_get_status", {}))


async def test_stdio_relay(instance):
    async with Client(instance.relay_params(), mode="legacy") as c:
        tools = await c.list_tools()
        assert "spock_get_status" in {t.name for t in tools.tools}
        sc = check_status(await c.call_tool("spock_get_status", {}))
        assert any(cl["transport"] == "stdio" for cl in sc["clients"])


async def test_tools_list_declares_title_annotations_output_schema(instance):
    async with Client(instance.relay_params(), mode="legacy") as c:
        tools = (await c.list_tools()).tools
        for t in tools:
            assert t.title, t.name
            assert t.description and len(t.description) < 600, t.name
            a = t.annotations
            assert a is not None and a.read_only_hint is not None and a.destructive_hint is not None, t.name
            assert t.output_schema and t.output_schema.get("type") == "object", t.name
            assert t.input_schema.get("type") == "object", t.name
            # annotations agree with the level: a destructive tool is never read-only
            assert not (a.read_only_hint and a.destructive_hint), t.name


async def test_client_unknown_until_initialize(instance):
    async with Client(streamable_http_client(instance.url, http_client=instance.http_client()), mode="auto") as c:
        sc = check_status(await c.call_tool("spock_get_status", {}))
        # this very client identified itself through per-request metadata
        assert sc["clients"] and sc["clients"][0]["transport"] == "http"
