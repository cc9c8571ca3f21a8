"""A2c: the link stalls (both ways) for STALL s with request A waiting, long enough for the
control centre's "terminal never answers status queries" fallback (10 s). While still stalled,
a fast second terminal denies A and a second agent asks B (drawn, in fallback mode, armed from
its frame). The frozen person presses y five times (queued in the link) -- B has never been on
their screen. The link resumes: the y's reach the program before the late fence answer.
Does a y approve B?"""
import asyncio, sys
from lib import *
STALL = float(sys.argv[1]) if len(sys.argv) > 1 else 16.0
D = 1.25
async def main():
    t = Tui(up=D, down=D); raw = None
    try:
        await t.wait_for("[running]", timeout=40)
        raw = Raw(t.home); assert await raw.wait(lambda m: m.get("type") == "welcome")
        await asyncio.sleep(2)
        async with client(t, "agent-a") as ca, client(t, "agent-b") as cb:
            t.set_link(stall=True); t0 = time.monotonic()
            ta = asyncio.create_task(call(ca, "android_uninstall_app", {"packageName": "com.example.notes"}))
            ma = await raw.wait(lambda m: m.get("type") == "confirm_asked", 10)
            await asyncio.sleep(12 - (time.monotonic() - t0))
            raw.send({"type": "decide", "call_id": ma["ask"]["call_id"], "approve": False})
            await asyncio.sleep(0.2)
            tb = asyncio.create_task(call(cb, "android_uninstall_app", {"packageName": "com.example.shop"}))
            await asyncio.sleep(1.3)
            print("person's screen shows B?", "com.example.shop" in t.screen())
            for _ in range(5): t.keys("y"); await asyncio.sleep(0.15)
            await asyncio.sleep(STALL - (time.monotonic() - t0))
            t.set_link(stall=False); t1 = time.monotonic(); print("resumed at +%.1f" % (t1 - t0))
            shots = []
            while time.monotonic() - t1 < 2 * D + 1.5:
                shots.append((round(time.monotonic() - t1, 2), t.screen().splitlines()[-1])); await asyncio.sleep(0.25)
            for s in shots[::2]: print("  footer", s)
            r = await result_of(tb, 0.1)
            print("B RESULT:", r)
            if r is None:
                raw.send({"type": "decide", "call_id": ma["ask"]["call_id"] + 1, "approve": False}); await result_of(tb, 5)
            e, st = await call(ca, "android_list_packages", {})
            print("shop still installed:", "com.example.shop" in json.dumps(st))
        for rec in t.audit():
            if rec.get("tool") in ("android_uninstall_app", "attach_decide"): print(json.dumps(short(rec))[:400])
        print("LINK:", t.linklog().replace("\n", " | ")[-700:])
    finally:
        if raw: raw.close()
        t.kill()
asyncio.run(main())
