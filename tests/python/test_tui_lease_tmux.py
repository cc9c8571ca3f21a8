"""A device lease in the control centre, as a person meets it: `spock-tui --demo` in tmux, two
real MCP clients over the stdio relay. Status shows the lease (device, holder, time left); `x`
asks, `n` keeps it, `x` `y` breaks it; the other client can then act, and the break is in
the audit trail as the person's."""
import asyncio
import json
import shutil
import time

import pytest
from mcp import Client
from mcp.types import Implementation
from tmux_harness import relay, start_tui, text_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

TAP = {"x": 100, "y": 100}


@pytest.fixture
def tui(tmp_path):
    t = start_tui(tmp_path, "--demo")
    yield t
    t.kill()


def agent(t, name):
    return Client(relay(t), mode="legacy", client_info=Implementation(name=name, version="1.0"))


async def test_status_shows_a_lease_and_a_person_breaks_it(tui):
    await tui.wait_for("[running]", "demo")
    async with agent(tui, "agent-a") as a, agent(tui, "agent-b") as b:
        r = await a.call_tool("android_lease_device", {"durationSeconds": 900})
        assert r.is_error is False, text_of(r)
        device = r.structured_content["device"]

        tui.keys("1")
        screen = await tui.wait_for("Leases", "agent-a/1.0 (stdio#", "left (until")
        assert device[:20] in screen, screen
        r = await b.call_tool("android_tap", TAP)
        assert r.is_error is True and "agent-a/1.0" in text_of(r), text_of(r)

        # x asks first; n keeps the lease.
        tui.keys("x")
        await tui.wait_for("break the lease on", "y yes")
        tui.keys("n")
        await tui.wait_for("kept the lease")
        r = await b.call_tool("android_tap", TAP)
        assert r.is_error is True, text_of(r)

        # x, y breaks it: Status drops it, the other client acts, the holder is told.
        tui.keys("x")
        await tui.wait_for("break the lease on")
        tui.keys("y")
        await tui.wait_for("broke the lease on")
        await tui.wait_gone("Leases —")
        r = await b.call_tool("android_tap", TAP)
        assert r.is_error is False, text_of(r)
        st = await a.call_tool("spock_get_status", {})
        assert st.structured_content["leases"] == []

    audit = tui.home / "data" / "audit" / "audit.jsonl"
    deadline = time.monotonic() + 10
    broken = []
    while not broken and time.monotonic() < deadline:
        if audit.exists():
            recs = [json.loads(line) for line in audit.read_text().splitlines() if line.strip()]
            broken = [x for x in recs if x["tool"] == "android_lease_device" and x["arguments"].get("event") == "broken"]
        if not broken:
            await asyncio.sleep(0.2)
    assert broken, "no broken-lease record in the audit trail"
    (rec,) = broken
    assert rec["transport"] == "tui" and rec["client"] == "terminal", rec
    assert rec["decision"] == {"approved": True, "by": "key"}, rec
    assert rec["result"]["heldBy"].startswith("agent-a/1.0 (stdio#"), rec
