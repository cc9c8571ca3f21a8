"""A2: the link stalls for longer than the 10 s "terminal never answers" bound (an SSH session
freezing), RTT otherwise 2.5 s.
 (a) stall with nothing pending, link resumes, then a request: are keys typed before the request
     is seen still fenced, or did the control centre latch "no answers" and arm from the frame?
 (b) a request arrives during the stall; the person, frozen, presses y a few times (keys queue
     in the link); the link resumes: do the queued keys (typed before the request was ever on
     screen) approve it?"""
import asyncio, sys
from lib import *
VARIANT = sys.argv[1] if len(sys.argv) > 1 else "a"
STALL = float(sys.argv[2]) if len(sys.argv) > 2 else 12.0
D = 1.25
async def main():
    t = Tui(up=D, down=D)
    try:
        await t.wait_for("[running]", timeout=40)
        await asyncio.sleep(1)
        async with client(t) as c:
            if VARIANT == "a":
                t.set_link(stall=True); print("stall", STALL); await asyncio.sleep(STALL)
                t.set_link(stall=False); await asyncio.sleep(2 * D + 1.5)
                print("FOOTER after stall:", [l for l in t.screen().splitlines() if "answer" in l.lower() or "status" in l.lower()][-3:])
                task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
                deadline = time.monotonic() + 20; n = 0
                while MODAL not in t.screen() and time.monotonic() < deadline:
                    t.keys("y"); n += 1; await asyncio.sleep(0.05)
                t.keys("y"); t.keys("Tab"); t.keys("Enter")
                print("typed y x", n + 1, "before/at sight")
            else:
                t.set_link(stall=True)
                task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
                await asyncio.sleep(5)
                print("screen shows modal during stall?", MODAL in t.screen())
                for _ in range(5): t.keys("y"); await asyncio.sleep(0.2)
                await asyncio.sleep(STALL - 6)
                t.set_link(stall=False); print("resumed")
            await asyncio.sleep(2 * D + 1.0)
            s = t.screen()
            r = await result_of(task, 0.1)
            print("RESULT:", r)
            print("\n".join(s.splitlines()[-12:]))
            if r is None:
                t.keys("n"); await result_of(task, 10)
            e, st = await call(c, "android_list_packages", {})
            print("notes still installed:", "com.example.notes" in json.dumps(st))
        for rec in t.audit():
            if rec.get("tool") in ("android_uninstall_app", "attach_decide"): print(json.dumps(short(rec))[:400])
        print("LINKLOG tail:", t.linklog()[-600:])
    finally:
        t.kill()
asyncio.run(main())
