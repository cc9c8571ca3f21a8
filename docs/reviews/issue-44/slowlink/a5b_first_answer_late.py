"""A5b: the same as A5 without SIGSTOP: the link (RTT 2*D) is stalled from the very start, so
the control centre's start-up status query has no answer yet. After WAIT s (> 10 s: the
"never answers" fallback) an agent asks a destructive call; the frozen person presses y five
times (queued in the link; the request has never been on their screen). Then the link resumes.
Evidence: the link log shows the y's reach the program before any ESC[0n answer."""
import asyncio, sys
from lib import *
WAIT = float(sys.argv[1]) if len(sys.argv) > 1 else 11.0
D = float(sys.argv[2]) if len(sys.argv) > 2 else 1.25
async def main():
    t = Tui(up=D, down=D)
    t.set_link(stall=True); t0 = time.monotonic()
    try:
        async with client(t) as c:
            await asyncio.sleep(max(0, WAIT - (time.monotonic() - t0)))
            task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
            await asyncio.sleep(1.0)
            print("person's screen (frozen) shows the request?", MODAL in t.screen(), "| shows anything?", bool(t.screen().strip()))
            for _ in range(5): t.keys("y"); await asyncio.sleep(0.15)
            await asyncio.sleep(1.0)
            r = await result_of(task, 0.1); print("result before resume:", r)
            t.set_link(stall=False); t1 = time.monotonic(); print("resumed at +%.1f" % (t1 - t0))
            seen = None
            while time.monotonic() - t1 < 2 * D + 2:
                s = t.screen()
                if seen is None and MODAL in s: seen = round(time.monotonic() - t1, 2); print("request first on the person's screen at resume+%.2f" % seen)
                r = await result_of(task, 0.05)
                if r is not None: print("call finished at resume+%.2f" % (time.monotonic() - t1)); break
                await asyncio.sleep(0.1)
            r = await result_of(task, 3); print("RESULT:", r)
            print("screen footer lines:", [l.strip()[:120] for l in t.screen().splitlines()[-3:]])
            if r is None: t.keys("n"); await result_of(task, 10)
            e, st = await call(c, "android_list_packages", {})
            print("notes still installed:", "com.example.notes" in json.dumps(st))
        for rec in t.audit():
            if rec.get("tool") in ("android_uninstall_app",): print(json.dumps(short(rec))[:400])
        print("LINK:"); print(t.linklog())
    finally:
        t.kill()
asyncio.run(main())
