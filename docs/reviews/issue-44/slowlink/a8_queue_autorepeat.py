"""A8: two requests queued (A uninstall notes, B uninstall shop), RTT 2.5 s. The person waits
until A is armed on their screen and then holds `y` down (key auto-repeat: y every 33 ms for
1.5 s, the way a held key or a bouncy double-tap sends it) and hits Enter. A is approved by
the first y; B is drawn behind it. Do the repeats -- all typed before B could reach the screen
-- approve B?"""
import asyncio, sys
from lib import *
D = 1.25
async def main():
    t = Tui(up=D, down=D)
    try:
        await t.wait_for("[running]", timeout=40)
        async with client(t, "agent-a") as ca, client(t, "agent-b") as cb:
            ta = asyncio.create_task(call(ca, "android_uninstall_app", {"packageName": "com.example.notes"}))
            await t.wait_for(MODAL, timeout=15)
            tb = asyncio.create_task(call(cb, "android_uninstall_app", {"packageName": "com.example.shop"}))
            await t.wait_armed(timeout=15); print("A armed on screen:", "com.example.notes" in t.screen())
            a = time.monotonic()
            while time.monotonic() - a < 1.5: t.keys("y"); await asyncio.sleep(0.033)
            t.keys("Enter")
            await asyncio.sleep(2 * D + 1.5)
            print("A:", await result_of(ta, 0.1)); rb = await result_of(tb, 0.1); print("B:", rb)
            print("B on screen now:", "com.example.shop" in t.screen(), "| footer:", t.screen().splitlines()[-1].strip())
            if rb is None: t.keys("n"); await result_of(tb, 5)
        for rec in t.audit():
            if rec.get("tool") == "android_uninstall_app": print(json.dumps(short(rec))[:300])
    finally:
        t.kill()
asyncio.run(main())
