"""K3: a y/n question the person opened on Settings (Enable all) sits under an agent's confirmation.
The agent withdraws its call just before the person's `y` for the modal: does the y answer the
Settings question instead?"""
import asyncio, sys
from lib import *
DELAY = float(sys.argv[1]) if len(sys.argv) > 1 else 0.10
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            await call(c, "android_batch_save", {"id": "old", "name": "old", "steps": [{"tool": "android_get_battery_info", "arguments": {}}]})
            t.keys("5"); await t.wait_for("Enable all")
            await asyncio.sleep(0.4)
            t.keys("a"); await asyncio.sleep(0.6)
            s = t.screen(); print("\n".join(l for l in s.splitlines() if "?" in l or "y/n" in l or "Enable" in l)[:1500]); print("FOOTER:", s.splitlines()[-1])
            task = asyncio.create_task(call(c, "android_batch_delete", {"id": "old"}))
            await t.wait_armed()
            await asyncio.sleep(0.5)   # the person reads it, about to press y
            task.cancel()              # the agent withdraws just before
            await asyncio.sleep(DELAY)
            t.keys("y")
            await asyncio.sleep(1.0)
            s = t.screen(); print(s)
            e, st = await call(c, "spock_get_status")
            print("access after:", st["access"], st["tools"])
        for r in t.audit():
            if r.get("tool") in ("control_access", "android_batch_delete"): print(json.dumps(short(r))[:500])
    finally:
        t.kill()
asyncio.run(main())
