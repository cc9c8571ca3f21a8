"""A5c: no freeze at all. Link RTT 2*D (5 s). The control centre's start-up status query is
answered a round trip after start; an agent asks a destructive call EARLY s after the server
is up, i.e. before that start-up answer is back. Hypothesis (from A5): the late start-up answer
is taken as the fence answer of the request's frame, so the request arms ~(2D - EARLY) s too
early and `y` typed before the request is on the person's screen approves it.
Person: `y` every 50 ms until the modal is on their screen (then stops: y, Tab, Enter as the
trial)."""
import asyncio, sys
from lib import *
D = float(sys.argv[1]) if len(sys.argv) > 1 else 2.5
EARLY = float(sys.argv[2]) if len(sys.argv) > 2 else 1.5
async def main():
    t = Tui(up=D, down=D); t0 = time.monotonic()   # endpoint.json is up
    try:
        async with client(t) as c:
            await asyncio.sleep(max(0, EARLY - (time.monotonic() - t0)))
            task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
            ta = time.monotonic(); print("asked at +%.2f after the endpoint appeared" % (ta - t0))
            typed = []; r = None; seen = None
            while time.monotonic() - ta < 20:
                if MODAL in t.screen(): seen = time.monotonic() - ta; break
                r = await result_of(task, 0.001)
                if r is not None: break
                t.keys("y"); typed.append(round(time.monotonic() - ta, 2)); await asyncio.sleep(0.05)
            print("request on the person's screen at ask+%s; y typed %d times before, last at ask+%.2f" % (seen and round(seen, 2), len(typed), typed[-1] if typed else -1))
            if r is None:
                r = await result_of(task, 2 * D + 1.0)
            print("RESULT:", r, "at ask+%.2f" % (time.monotonic() - ta))
            if r is None: t.keys("n"); await result_of(task, 10)
            e, st = await call(c, "android_list_packages", {})
            print("notes still installed:", "com.example.notes" in json.dumps(st))
        for rec in t.audit():
            if rec.get("tool") in ("android_uninstall_app",): print(json.dumps(short(rec))[:400])
        print("LINK (y's collapsed):")
        ys = 0
        for l in t.linklog().splitlines():
            if l.endswith("b'y'"):
                ys += 1; continue
            if ys: print("   ... %d x y" % ys); ys = 0
            print("  ", l)
        if ys: print("   ... %d x y" % ys)
    finally:
        t.kill()
asyncio.run(main())
