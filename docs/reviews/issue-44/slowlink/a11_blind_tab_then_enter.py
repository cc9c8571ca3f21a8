"""A11: a Tab typed just before the request reaches the person's screen (blind: e.g. the
person was tabbing on the screen underneath), RTT 2.5 s. On their screen the modal appears
with [Deny] focused; 1.0 s later (it is armed: y would count) they press Enter to deny what
they see focused. If the blind Tab was applied (focus moved to Approve on the program's side,
shown to them only a round trip later), the Enter approves."""
import asyncio, sys
from lib import *
D = 1.25
AFTER = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
async def main():
    t = Tui(up=D, down=D)
    try:
        await t.wait_for("[running]", timeout=40)
        async with client(t) as c:
            task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
            a = time.monotonic()
            # the person tabs away on the screen under it, every 0.5 s, until the modal shows
            tabbed = False
            while MODAL not in t.screen() and time.monotonic() - a < 20:
                if not tabbed and time.monotonic() - a > D - 0.25:
                    t.keys("Tab"); tabbed = True; print("Tab typed at +%.2f, modal not yet on screen" % (time.monotonic() - a))
                await asyncio.sleep(0.02)
            # modal appeared: the last Tab just before it appeared (typed ~0.03 s before sight)
            seen = time.monotonic() - a
            s0 = t.screen(); focus0 = [l.strip("│ ") for l in s0.splitlines() if "Deny (n)" in l]
            print("seen at +%.2f; focus at first sight:" % seen, focus0)
            await asyncio.sleep(AFTER)
            s1 = t.screen(); focus1 = [l.strip("│ ") for l in s1.splitlines() if "Deny (n)" in l]
            print("focus shown when pressing Enter:", focus1, "| armed:", "y available in" not in s1)
            t.keys("Enter")
            await asyncio.sleep(2 * D + 0.5)
            r = await result_of(task, 0.1); print("RESULT:", r)
            if r is None: t.keys("n"); await result_of(task, 5)
        for rec in t.audit():
            if rec.get("tool") == "android_uninstall_app": print(json.dumps(short(rec))[:300])
    finally:
        t.kill()
asyncio.run(main())
