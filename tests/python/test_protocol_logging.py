"""Logging (issue 20): this program's own log records, the ones spock_get_logs returns, reach
a client as notifications/message at or above the level it asked for. The 2025 era asks per
session with logging/setLevel; 2026-07-28 asks per request with `_meta` logLevel."""
import http.client
import urllib.parse

import anyio
import pytest
from conftest import call, start_instance
from protocol_common import SESSION_ERAS, connected, until

pytestmark = pytest.mark.anyio

RANK = {"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}


@pytest.fixture
def demo(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    yield inst
    inst.stop()


MARK = "refused a request from a foreign Origin"


def foreign_origin(inst):
    """Something that logs at WARN: a request from a foreign browser Origin (refused)."""
    u = urllib.parse.urlsplit(inst.url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    try:
        c.request("POST", "/mcp", body=b"{}", headers={"Origin": "http://evil.example", "Content-Type": "application/json"})
        assert c.getresponse().status == 403
    finally:
        c.close()


@pytest.mark.parametrize("transport,mode", SESSION_ERAS)
async def test_set_level_then_notifications_message(demo, transport, mode):
    got = []

    async def on_log(params):
        got.append(params)

    async with connected(demo, transport, mode, logging_callback=on_log) as c:
        assert c.server_capabilities.logging is not None
        await c.set_logging_level("info")
        foreign_origin(demo)
        await until(lambda: any(MARK in str(m.data) for m in got), what="the warning record")
        assert all(RANK[m.level] >= RANK["info"] for m in got), [m.level for m in got]
        rec = next(m for m in got if MARK in str(m.data))
        assert rec.level == "warning" and rec.logger and rec.data["time"]
        # The same record spock_get_logs returns.
        err, logs = await call(c, "spock_get_logs", {"contains": "foreign Origin"})
        assert not err and logs["entries"], logs
        # At error, the next warning is not sent (the record after it, an error, would be).
        await c.set_logging_level("error")
        seen = len(got)
        foreign_origin(demo)
        err, logs = await call(c, "spock_get_logs", {"contains": "foreign Origin"})
        assert len(logs["entries"]) == 2, logs
        assert all(RANK[m.level] >= RANK["error"] for m in got[seen:]), [m.level for m in got[seen:]]


async def test_2026_per_request_log_level(demo):
    got = []

    async def on_log(params):
        got.append(params)

    async with connected(demo, "http", "auto", logging_callback=on_log, log_level="info") as c:
        assert c.protocol_version == "2026-07-28"

        async def meanwhile():
            await anyio.sleep(0.7)
            await anyio.to_thread.run_sync(foreign_origin, demo)

        async with anyio.create_task_group() as tg:
            tg.start_soon(meanwhile)
            # A call that runs ~2 s: the record logged meanwhile travels on its response stream.
            await c.call_tool("android_wait_for_element", {"element": "never-there-xyz", "timeoutMs": 2000})
        assert any(MARK in str(m.data) for m in got), got


async def test_2026_without_a_level_gets_no_messages(demo):
    got = []

    async def on_log(params):
        got.append(params)

    async with connected(demo, "http", "auto", logging_callback=on_log) as c:

        async def meanwhile():
            await anyio.sleep(0.5)
            await anyio.to_thread.run_sync(foreign_origin, demo)

        async with anyio.create_task_group() as tg:
            tg.start_soon(meanwhile)
            await c.call_tool("android_wait_for_element", {"element": "never-there-xyz", "timeoutMs": 1500})
        assert got == []


async def test_nothing_is_sent_while_spock_get_logs_is_switched_off(tmp_path):
    inst = start_instance(tmp_path, "--demo", config='[access]\ndisabled = ["spock_get_logs"]\n')
    got = []

    async def on_log(params):
        got.append(params)

    try:
        async with connected(inst, "stdio", "legacy", logging_callback=on_log) as c:
            await c.set_logging_level("debug")
            foreign_origin(inst)
            await until(lambda: MARK in inst.stderr(), what="the record in the server's own log")
            err, _ = await call(c, "spock_get_status")  # a round trip after the record
            await anyio.sleep(0.5)
            assert got == [], got
    finally:
        inst.stop()
