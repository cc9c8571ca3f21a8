"""Clients of every era and transport for the protocol tests (issue 20): HTTP in the 2025
session era and the stateless 2026-07-28 one, and stdio through the relay."""
import contextlib
import json

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

# (transport, mode) pairs each capability is checked on.
ERAS = [("http", "legacy"), ("http", "auto"), ("stdio", "legacy")]
SESSION_ERAS = [e for e in ERAS if e[1] == "legacy"]


def client(inst, transport: str, mode: str, **kw) -> Client:
    if transport == "http":
        return Client(streamable_http_client(inst.url, http_client=inst.http_client()), mode=mode, **kw)
    return Client(inst.relay_params(), mode=mode, **kw)


async def until(pred, timeout=15.0, what="condition"):
    """Waits (generously) for `pred()` to hold; fails naming what never happened."""
    with anyio.fail_after(timeout):
        while not pred():
            await anyio.sleep(0.05)
    return True


@contextlib.asynccontextmanager
async def connected(inst, transport, mode, **kw):
    async with client(inst, transport, mode, **kw) as c:
        yield c


def stateless_post(inst, body: dict, name: str) -> dict:
    """POSTs one sessionless 2026-07-28 `tools/call` as a raw client would; its JSON-RPC reply,
    whether it came as JSON or as an event stream."""
    h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
         "Authorization": f"Bearer {inst.token}", "Mcp-Protocol-Version": "2026-07-28",
         "Mcp-Method": "tools/call", "Mcp-Name": name, "Connection": "close"}
    r = httpx2.post(inst.url, headers=h, content=json.dumps(body), timeout=30)
    assert r.status_code == 200, (r.status_code, r.text)
    text = r.text
    if text.lstrip().startswith("{"):
        return json.loads(text)
    data = [l[5:].strip() for l in text.splitlines() if l.startswith("data:") and l[5:].strip()]
    return json.loads(data[-1])
