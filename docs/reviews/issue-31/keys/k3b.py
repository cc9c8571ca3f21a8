import asyncio, sys
from lib import *
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            await call(c, "android_batch_save", {"id": "old", "name": "old", "steps": [{"tool": "android_get_battery_info", "arguments": {}}]})
            t.keys("5"); await t.wait_for("Enable all"); await asyncio.sleep(0.4)
            t.keys("a"); await asyncio.sleep(0.6)
            task = asyncio.create_task(call(c, "android_batch_delete", {"id": "old"}))
            await t.wait_armed(); await asyncio.sleep(0.5)
            task.cancel()
            t0 = time.monotonic()
            while "Request withdrawn" in t.screen() and time.monotonic() - t0 < 10:
                await asyncio.sleep(0.05)
            print(f"withdrawn notice gone after {time.monotonic()-t0:.2f}s")
            s = t.screen(); print("\n".join(l for l in s.splitlines() if "Go ahead" in l or "Are you sure" in l))
            t.keys("y"); await asyncio.sleep(0.8)
            e, st = await call(c, "spock_get_status"); print("access after y:", st["access"])
    finally:
        t.kill()
asyncio.run(main())
