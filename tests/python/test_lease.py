"""Device leases between agents (issue 14, item 9): two real MCP clients on one `serve --demo`.
While one holds the demo device, the other's actions are refused naming the holder and the
expiry, its reads still work; the lease ends on release, on its own, and when the holder's
stdio connection or HTTP session closes. Each end is in the audit trail."""
import asyncio
import json
import time

import pytest
from conftest import start_instance
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

pytestmark = pytest.mark.anyio

TAP = {"x": 100, "y": 100}


@pytest.fixture
def demo(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    yield inst
    inst.stop()


def stdio(inst, name):
    return Client(inst.relay_params(), mode="legacy", client_info=Implementation(name=name, version="1.0"))


def http(inst, name):
    return Client(
        streamable_http_client(inst.url, http_client=inst.http_client()),
        mode="legacy",
        client_info=Implementation(name=name, version="2.0"),
    )


async def call(c, name, args=None):
    r = await c.call_tool(name, args or {})
    return bool(r.is_error), r.structured_content


async def leases(c):
    err, sc = await call(c, "spock_get_status")
    assert not err, sc
    return sc["leases"]


async def until_free(c, timeout=15.0):
    """B's tap, retried until the lease is gone; returns how long it took."""
    started = time.monotonic()
    while True:
        err, sc = await call(c, "android_tap", TAP)
        if not err:
            return time.monotonic() - started
        assert "is leased by" in sc["error"], sc
        assert time.monotonic() - started < timeout, sc
        await asyncio.sleep(0.2)


def audit_events(inst):
    path = inst.home / "data" / "audit" / "audit.jsonl"
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if r["tool"] == "android_lease_device":
            out.append(r)
    return out


async def wait_audit(inst, event, client, timeout=10.0):
    """The lease records with this event for this client, once the writer has them on disk."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [r for r in audit_events(inst) if r["arguments"].get("event") == event and r["client"] == client]
        if found:
            return found
        await asyncio.sleep(0.2)
    raise AssertionError(f"no {event} lease record in the audit trail: {audit_events(inst)}")


async def test_a_lease_refuses_other_clients_actions_but_not_their_reads(demo):
    async with stdio(demo, "agent-a") as a, stdio(demo, "agent-b") as b:
        err, got = await call(a, "android_lease_device", {"durationSeconds": 600})
        assert not err, got
        assert got["action"] == "taken"
        device = got["device"]
        lease = got["lease"]
        assert lease["holder"]["client"] == "agent-a/1.0"
        assert lease["holder"]["transport"] == "stdio"
        assert 590 <= lease["secondsLeft"] <= 600

        # B's action: refused before it runs, naming the holder and the expiry.
        err, sc = await call(b, "android_tap", TAP)
        assert err and sc["kind"] == "refused", sc
        assert "agent-a/1.0" in sc["error"] and device in sc["error"], sc
        assert lease["expiresAt"].replace("+00:00", "Z")[:19] in sc["error"], sc
        assert sc["lease"]["holder"]["client"] == "agent-a/1.0"
        # Addressed by its full name, the same.
        err, sc = await call(b, "android_tap", {**TAP, "serial": device})
        assert err and "agent-a/1.0" in sc["error"], sc
        # B's reads work.
        err, sc = await call(b, "android_get_battery_info")
        assert not err, sc
        err, sc = await call(b, "android_get_ui_tree")
        assert not err, sc
        # B cannot take it, nor release it.
        err, sc = await call(b, "android_lease_device")
        assert err and "agent-a/1.0" in sc["error"], sc
        err, sc = await call(b, "android_lease_device", {"release": True})
        assert err and "agent-a/1.0" in sc["error"], sc
        # Both see who holds it.
        for c in (a, b):
            (shown,) = await leases(c)
            assert shown["device"] == device and shown["holder"]["client"] == "agent-a/1.0"

        # A acts; renewing extends it.
        err, sc = await call(a, "android_tap", TAP)
        assert not err, sc
        err, got = await call(a, "android_lease_device", {"durationSeconds": 3600})
        assert not err and got["action"] == "renewed", got
        assert got["lease"]["secondsLeft"] > 3000

        # Out of range durations are refused before anything.
        err, sc = await call(a, "android_lease_device", {"durationSeconds": 5})
        assert err and sc["kind"] == "invalid_arguments", sc

        # A releases: B acts.
        err, got = await call(a, "android_lease_device", {"release": True})
        assert not err and got["action"] == "released", got
        err, sc = await call(b, "android_tap", TAP)
        assert not err, sc
        assert await leases(b) == []


async def test_same_name_on_another_connection_is_another_holder(demo):
    async with stdio(demo, "twin") as a, stdio(demo, "twin") as b:
        err, got = await call(a, "android_lease_device")
        assert not err, got
        err, sc = await call(b, "android_tap", TAP)
        assert err and "twin/1.0 (stdio#" in sc["error"], sc


async def test_a_short_lease_expires_on_its_own(demo):
    async with stdio(demo, "agent-a") as a, stdio(demo, "agent-b") as b:
        err, got = await call(a, "android_lease_device", {"durationSeconds": 10})
        assert not err, got
        err, sc = await call(b, "android_tap", TAP)
        assert err, sc
        waited = await until_free(b, timeout=30)
        assert waited < 30
        assert await leases(a) == []
    (rec,) = await wait_audit(demo, "expired", "agent-a/1.0")
    assert rec["transport"] == "stdio" and rec["device"], rec


async def test_the_holder_disconnecting_frees_the_device(demo):
    async with stdio(demo, "agent-b") as b:
        # stdio: the relay exits with its client.
        async with stdio(demo, "agent-a") as a:
            err, got = await call(a, "android_lease_device")
            assert not err, got
            err, sc = await call(b, "android_tap", TAP)
            assert err and "agent-a/1.0" in sc["error"], sc
        await until_free(b)
        (rec,) = await wait_audit(demo, "holder_disconnected", "agent-a/1.0")
        assert rec["transport"] == "stdio", rec

        # HTTP: the session's DELETE.
        async with http(demo, "agent-h") as h:
            err, got = await call(h, "android_lease_device")
            assert not err, got
            assert got["lease"]["holder"]["session"].startswith("http session ")
            err, sc = await call(b, "android_tap", TAP)
            assert err and "agent-h/2.0" in sc["error"], sc
            # Another HTTP session of the same client is another holder.
            async with http(demo, "agent-h") as h2:
                err, sc = await call(h2, "android_tap", TAP)
                assert err and "agent-h/2.0" in sc["error"], sc
            # ...and its DELETE did not end h's lease.
            err, sc = await call(b, "android_tap", TAP)
            assert err, sc
            err, sc = await call(h, "android_tap", TAP)
            assert not err, sc
        await until_free(b)
        (rec,) = await wait_audit(demo, "holder_disconnected", "agent-h/2.0")
        assert rec["transport"] == "http", rec


async def test_a_stateless_http_client_holds_by_name_until_time_or_release(demo):
    """2026-07-28 has no connection: each request stands alone, the lease outlives them all and
    the client is known by its name and version."""
    def stateless():
        return Client(
            streamable_http_client(demo.url, http_client=demo.http_client()),
            mode="auto",
            client_info=Implementation(name="agent-s", version="3.0"),
        )

    async with stdio(demo, "agent-b") as b:
        async with stateless() as s:
            assert s.protocol_version == "2026-07-28"
            err, got = await call(s, "android_lease_device")
            assert not err, got
            assert got["lease"]["holder"]["session"] == "stateless http", got
            err, sc = await call(s, "android_tap", TAP)
            assert not err, sc
            err, sc = await call(b, "android_tap", TAP)
            assert err and "agent-s/3.0 (stateless http)" in sc["error"], sc
        # Closing the client ends nothing: there was no connection to end.
        await asyncio.sleep(0.5)
        err, sc = await call(b, "android_tap", TAP)
        assert err and "agent-s/3.0" in sc["error"], sc
        async with stateless() as s:
            err, got = await call(s, "android_lease_device", {"release": True})
            assert not err and got["action"] == "released", got
        err, sc = await call(b, "android_tap", TAP)
        assert not err, sc
