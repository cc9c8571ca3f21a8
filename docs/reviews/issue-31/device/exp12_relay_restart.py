"""Attack 12: the MCP transports restart (the person's `server restart`) while stdio agent A
(through `spock-tui relay`) holds a lease on P and has selected Q. After the relay
reconnects: who holds P, where do A's serial-less calls go, can B act on P?"""
import sys, json, time, asyncio, os
sys.path.insert(0, "/work/attacks/device")
from lib import *
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import Implementation

lab = Lab(n=2)

async def main():
    P, Q = lab.adbd
    params = StdioServerParameters(command=EXE, args=["relay", os.path.join(lab.home, "run", "endpoint.json")],
                                   env={**os.environ, "SPOCK_TUI_HOME": lab.home})
    person = Person(lab.serve)
    b = Http(lab.serve, "agent-b")
    async with Client(params, mode="legacy", client_info=Implementation(name="agent-a", version="1.0")) as a:
        async def call(n, args=None):
            r = await a.call_tool(n, args or {})
            return bool(r.is_error), r.structured_content or (r.content[0].text if r.content else None)
        log("A lease P:", (await call("android_lease_device", {"serial": P}))[1].get("action"))
        log("A select Q:", await call("android_select_device", {"serial": Q}))
        log("B tap P before:", b.call("android_tap", {"x": 1, "y": 1, "serial": P})[0] and "refused")
        person.send(type="server", action="restart")
        t0 = time.monotonic()
        while time.monotonic() - t0 < 15:
            await asyncio.sleep(0.5)
            st = [m for m in person.all if m["type"] == "server_status"]
            if st and st[-1]["status"]["state"] == "running" and len(st) > 2:
                break
        log("server states:", [m["status"]["state"] for m in person.all if m["type"] == "server_status"])
        await asyncio.sleep(1)
        try:
            b = Http(lab.serve, "agent-b")
        except Exception as e:
            log("B reinit", e)
        log("B tap P after restart:", json.dumps(b.call("android_tap", {"x": 1, "y": 1, "serial": P}))[:200])
        for i in range(3):
            try:
                log("A tap (no serial) after restart:", json.dumps(await asyncio.wait_for(call("android_tap", {"x": 2, "y": 2}), 20))[:250])
                break
            except Exception as e:
                log("A call failed:", repr(e)[:200]); await asyncio.sleep(1)
        log("A status leases:", json.dumps((await call("spock_get_status"))[1].get("leases"))[:300])
    time.sleep(1)
    for r in lab.serve.audit():
        if r["tool"] in ("android_tap", "android_lease_device", "android_select_device"):
            log("  audit", r["seq"], r["client"], r["transport"], r["tool"], r.get("device"), r.get("arguments", {}).get("event", ""), r["outcome"])

try:
    asyncio.run(main())
finally:
    lab.close()
