"""A7: resize storm while a request is in flight to the person's screen (RTT 2.5 s): from the
moment the agent asks, the window is resized every 120 ms (alternating 120x40 / 90x30 /
60x20), and y is typed every 50 ms until the request is on the person's screen, then y, Tab,
Enter. Many fences are outstanding at once. Does a stale answer arm the request early, does the
centre crash or hang? Then: the storm stops, the person waits for arming and approves (live)."""
import asyncio, sys
from lib import *
D = 1.25
async def main():
    t = Tui(up=D, down=D)
    try:
        await t.wait_for("[running]", timeout=40)
        async with client(t) as c:
            task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
            sizes = [(120, 40), (90, 30), (60, 20)]; i = 0; a = time.monotonic(); last = 0
            while time.monotonic() - a < 20:
                if time.monotonic() - last > 0.12: t.resize(*sizes[i % 3]); i += 1; last = time.monotonic()
                if MODAL in t.screen() and time.monotonic() - a > 4: break
                t.keys("y"); await asyncio.sleep(0.05)
            t.keys("y"); t.keys("Tab"); t.keys("Enter")
            print("resizes:", i, "request on screen at +%.2f" % (time.monotonic() - a))
            # keep storming for another 3 s with y's (each resize re-fences: person sees a fresh frame)
            b = time.monotonic()
            while time.monotonic() - b < 3:
                if time.monotonic() - last > 0.12: t.resize(*sizes[i % 3]); i += 1; last = time.monotonic()
                t.keys("y"); await asyncio.sleep(0.05)
            t.resize(120, 40)
            await asyncio.sleep(0.3)
            r = await result_of(task, 0.1); print("RESULT during storm:", r)
            await asyncio.sleep(2 * D)
            if r is None:
                try:
                    await t.wait_armed(timeout=15); t.keys("y"); r = await result_of(task, 2 * D + 2); print("honest y after the storm:", r)
                except AssertionError as e: print("not armed after storm:", str(e)[-500:])
            print("pane dead:", t.pane_dead())
            a = time.monotonic(); e, st = await call(c, "spock_get_status", {}); print("status ok %.2fs" % (time.monotonic() - a))
        for rec in t.audit():
            if rec.get("tool") == "android_uninstall_app": print(json.dumps(short(rec))[:300])
        L = t.linklog(); print("DSR written:", L.count("DOWN dsr"), "answers:", L.count("[0n"))
    finally:
        t.kill()
asyncio.run(main())
