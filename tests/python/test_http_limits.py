"""HTTP details real clients meet: a result over 2 MB in both protocol eras (Python caps one SSE
event at 1 MiB), and legacy sessions that outlive rmcp's idle expiry."""
import shutil

import anyio
import pytest
from conftest import ROOT, RealAdb, have_adb, start_instance
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio


async def test_two_megabyte_result_in_both_eras(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    # A device whose log holds 5,000 long lines: android_get_logcat returns well over 2 MB.
    scen = tmp_path / "scen"
    shutil.copytree(ROOT / "assets" / "demo", scen)
    toml = (scen / "demo.toml").read_text()
    filler = "x" * 420
    toml += "".join(f'\n[[logcat]]\nlevel = "I"\ntag = "Big"\nmessage = "line {i} {filler}"\n' for i in range(5000))
    (scen / "demo.toml").write_text(toml)
    adb = RealAdb(tmp_path, scenarios=[scen / "demo.toml"])
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    try:
        for mode in ("legacy", "auto"):
            async with Client(streamable_http_client(inst.url, http_client=inst.http_client()), mode=mode) as c:
                res = await c.call_tool("android_get_logcat", {"lines": 5000, "tag": "Big"})
                assert res.is_error is False, res.structured_content
                assert len(res.content[0].text) > 2_000_000, len(res.content[0].text)
                assert len(res.structured_content["lines"]) == 5000
    finally:
        inst.stop()
        adb.close()


async def test_legacy_session_survives_idle_expiry(tmp_path):
    inst = start_instance(tmp_path, config="[server]\nsession_idle_secs = 1\n")
    try:
        async with Client(streamable_http_client(inst.url, http_client=inst.http_client()), mode="legacy") as c:
            assert (await c.call_tool("spock_get_status", {})).is_error is False
            await anyio.sleep(3)  # rmcp has ended the idle session by now
            res = await c.call_tool("spock_get_status", {})
            assert res.is_error is False
            assert (await c.list_tools()).tools
    finally:
        inst.stop()


async def test_new_sessions_stop_at_the_cap_and_ending_one_makes_room(tmp_path):
    """The finding: 5,000 bare initializes made 5,000 live sessions in 2 s (54 → 384 MB). Past
    512 a new one is refused with 503 and a JSON-RPC error saying what to do; existing
    sessions keep working, and one ended with DELETE makes room."""
    import httpx2 as httpx

    inst = start_instance(tmp_path)
    cap = 512
    h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
         "Authorization": f"Bearer {inst.token}"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}}
    try:
        async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=8)) as c:
            async def one():
                r = await c.post(inst.url, headers=h, json=init)
                assert r.status_code == 200, r.text
                return r.headers["mcp-session-id"]

            ids = []
            for _ in range(cap // 16):
                async with anyio.create_task_group() as tg:
                    batch = []
                    for _ in range(16):
                        async def go(batch=batch):
                            batch.append(await one())
                        tg.start_soon(go)
                ids.extend(batch)
            assert len(ids) == cap
            refused = await c.post(inst.url, headers=h, json=init)
            assert refused.status_code == 503, refused.text
            body = refused.json()
            assert body["id"] == 1 and "DELETE" in body["error"]["message"], body
            # An open session still answers.
            s = {**h, "Mcp-Session-Id": ids[0], "MCP-Protocol-Version": "2025-11-25"}
            await c.post(inst.url, headers=s, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
            r = await c.post(inst.url, headers=s, json={"jsonrpc": "2.0", "id": 2, "method": "ping"})
            assert r.status_code == 200 and "result" in r.text, r.text
            # Stateless 2026-07-28 requests open no session and are not refused.
            r = await c.post(inst.url, headers={**h, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, json={
                "jsonrpc": "2.0", "id": 3, "method": "tools/list",
                "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                     "io.modelcontextprotocol/clientInfo": {"name": "x", "version": "1"},
                                     "io.modelcontextprotocol/clientCapabilities": {}}}})
            assert r.status_code == 200, r.text
            # Ending one makes room for one.
            r = await c.delete(inst.url, headers={**h, "Mcp-Session-Id": ids[1], "MCP-Protocol-Version": "2025-11-25"})
            assert r.status_code in (200, 202, 204), r.text
            assert (await c.post(inst.url, headers=h, json=init)).status_code == 200
    finally:
        inst.stop()
