"""A2d: the link is stalled from start-up for STALL s (an SSH session that hangs as the control
centre starts), so the start-up status query goes unanswered past the 10 s "never answers"
bound. Then the link works normally at RTT 2.5 s. Is fencing back on (the terminal does answer,
just late), or did the control centre latch "arm from the frame"? The person types y every
50 ms until the request is on their screen, then y, Tab, Enter."""
import asyncio, sys
from lib import *
STALL = float(sys.argv[1]) if len(sys.argv) > 1 else 13.0
D = 1.25
async def main():
    t = Tui(up=D, down=D, config=None)
    # stall from the very start: set before the program writes anything reaches the terminal
    t.set_link(stall=True); t0 = time.monotonic()
    try:
        async with client(t) as c:
            await asyncio.sleep(max(0, STALL - (time.monotonic() - t0)))
            t.set_link(stall=False)
            await t.wait_for("[running]", timeout=20)
            await asyncio.sleep(2 * D + 1)
            print("footer:", t.screen().splitlines()[-1])
            print("any 'answer' text:", [l.strip()[:110] for l in t.screen().splitlines() if "answer" in l.lower() or "quer" in l.lower()])
            task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
            deadline = time.monotonic() + 20; n = 0
            while MODAL not in t.screen() and time.monotonic() < deadline:
                t.keys("y"); n += 1; await asyncio.sleep(0.05)
            t.keys("y"); t.keys("Tab"); t.keys("Enter")
            print("typed y x", n + 1)
            await asyncio.sleep(2 * D + 1.0)
            r = await result_of(task, 0.1); print("RESULT:", r)
            print("footer:", t.screen().splitlines()[-1])
            if r is None: t.keys("n"); await result_of(task, 10)
        for rec in t.audit():
            if rec.get("tool") in ("android_uninstall_app",): print(json.dumps(short(rec))[:400])
        print("LINK:", [l for l in t.linklog().splitlines() if "y'" not in l][:12])
    finally:
        t.kill()
asyncio.run(main())
