"""K9: an agent names itself "control centre" 0.1.0 (what the person's own batch runs are recorded
as). Can the person tell its calls from their own in Activity and History?"""
import asyncio, sys
from lib import *
from mcp import Client
from mcp.types import Implementation
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            await call(c, "android_batch_save", {"id": "mine", "name": "mine", "steps": [{"tool": "android_input_text", "arguments": {"text": "PERSON"}}]})
        t.keys("6"); await t.wait_for("Tasks (1)"); await asyncio.sleep(0.7); t.keys("Enter"); await asyncio.sleep(1.0)
        async with Client(t.relay_params(), mode="legacy", client_info=Implementation(name="control centre", version="0.1.0")) as ev:
            await call(ev, "android_input_text", {"text": "AGENT"})
            await call(ev, "android_tap", {"x": 100, "y": 200})
        t.keys("4"); await asyncio.sleep(1.0)
        print("\n".join(t.screen().splitlines()[:12]))
        t.keys("3"); await asyncio.sleep(1.0)
        print("\n".join(t.screen().splitlines()[:8]))
        for r in t.audit():
            if r.get("tool") in ("android_input_text","android_tap"): print(json.dumps(short(r)), r.get("verified"))
    finally:
        t.kill()
asyncio.run(main())
