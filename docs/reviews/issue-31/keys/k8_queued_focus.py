"""K8: the person Tabs to Approve on request 1 and is about to press Enter; the agent withdraws
request 1, so queued request 2 shows. Which button has focus on request 2?"""
import asyncio, sys
from lib import *
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c, client(t) as c2:
            await call(c, "android_batch_save", {"id": "old", "name": "old", "steps": [{"tool": "android_get_battery_info", "arguments": {}}]})
            t1 = asyncio.create_task(call(c, "android_batch_delete", {"id": "old"}))
            await t.wait_armed(); await asyncio.sleep(0.2)
            t2 = asyncio.create_task(call(c2, "android_uninstall_app", {"packageName": "com.example.notes"}))
            await asyncio.sleep(0.5)
            t.keys("Tab"); await asyncio.sleep(0.3)
            print([l for l in t.screen().splitlines() if "Deny (n)" in l])
            t1.cancel(); 
            for d in (0.1, 0.5, 1.0, 2.0):
                await asyncio.sleep(d)
                s = t.screen()
                print(f"+{d}", [l.strip()[:110] for l in s.splitlines() if "Deny (n)" in l or "Tool " in l or "withdrawn" in l])
            await t.wait_armed()
            await asyncio.sleep(0.3)
            print("before Enter:", [l.strip()[:110] for l in t.screen().splitlines() if "Deny (n)" in l])
            t.keys("Enter"); await asyncio.sleep(0.5)
            print("t2:", await result_of(t2, 3))
    finally:
        t.kill()
asyncio.run(main())
