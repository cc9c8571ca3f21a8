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
