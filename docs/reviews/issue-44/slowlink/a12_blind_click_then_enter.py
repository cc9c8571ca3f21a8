"""A12: a mouse click typed just before the request reaches the person's screen, on the spot
where [Approve (y)] will be drawn (the person was clicking on the screen underneath), RTT 2.5 s.
A click only moves focus -- but if a blind click is applied, the focus sits on Approve while the
person's screen still shows Deny focused; they wait until it is armed on their screen and press
Enter to deny what they see focused. Does Enter approve? (First request: learn the button spot.)"""
import asyncio, sys
from lib import *
D = 1.25
async def main():
    t = Tui(up=D, down=D)
    try:
        await t.wait_for("[running]", timeout=40)
        async with client(t) as c:
            task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
            s = await t.wait_armed(timeout=20)
            row = next(i for i, l in enumerate(s.splitlines()) if "Approve (y)" in l); col = s.splitlines()[row].index("Approve (y)")
            t.keys("n"); print("learned Approve at row", row, "col", col, "first:", (await result_of(task, 8))[1].get("kind"))
            await asyncio.sleep(1.5)
            task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
            a = time.monotonic(); clicked = False
            while MODAL not in t.screen() and time.monotonic() - a < 20:
                if not clicked and time.monotonic() - a > D - 0.25:
                    t.type(f"\x1b[<0;{col + 2};{row + 1}M\x1b[<0;{col + 2};{row + 1}m"); clicked = True
                    print("blind click typed at +%.2f" % (time.monotonic() - a))
                await asyncio.sleep(0.02)
            print("seen at +%.2f" % (time.monotonic() - a))
            s1 = await t.wait_armed(timeout=20)
            focus = [l.strip("│ ") for l in s1.splitlines() if "Deny (n)" in l]
            print("armed on screen at +%.2f; focus shown:" % (time.monotonic() - a), focus, "| footer:", s1.splitlines()[-1].strip())
            t.keys("Enter")
            await asyncio.sleep(2 * D + 0.5)
            r = await result_of(task, 0.1); print("RESULT:", r)
            if r is None: t.keys("n"); await result_of(task, 5)
        for rec in t.audit():
            if rec.get("tool") == "android_uninstall_app": print(json.dumps(short(rec))[:300])
    finally:
        t.kill()
asyncio.run(main())
