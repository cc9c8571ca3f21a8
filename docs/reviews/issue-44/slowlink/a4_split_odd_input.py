"""A4: odd input bytes at a 0.7 s round trip.
 (1) split: every byte from the terminal is delivered separately, 40 ms apart (a fence answer
     ESC [ 0 n split across four reads): does the ESC read alone become an Esc key (deny?), is
     the answer still recognised (request arms), or do the "[0n" bytes act as keys?
 (2) with a request drawn but not yet armed on screen: invalid UTF-8, a bracketed paste holding
     a forged ESC[0n followed by y's, a 300 KB paste, a lone ESC[0n typed: crash, hang,
     mis-decide?"""
import asyncio, subprocess, sys
from lib import *
D = 0.35
async def part1(t, c):
    t.set_link(split=True)
    task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
    try:
        s = await t.wait_armed(timeout=20); print("(1) armed on screen with split answers")
    except AssertionError as e:
        print("(1) never armed:", str(e)[-800:])
    await asyncio.sleep(0.2)
    r = await result_of(task, 0.1); print("(1) result before any key:", r)
    t.keys("y"); r = await result_of(task, 5); print("(1) after honest y:", r)
    t.set_link(split=False)
    if r is None: t.keys("n"); await result_of(task, 5)
async def part2(t, c):
    task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.shop"}))
    await t.wait_for(MODAL, timeout=15)
    # right when it appears: odd input
    t.tmux("send-keys", "-t", t.session, "-H", "ff", "fe", "c3", "28", "e2", "82", "79")
    buf = t.home / "paste.txt"; buf.write_bytes(b"\x1b[0n" + b"y" * 20 + b"\x1b[0n\r")
    t.tmux("load-buffer", "-b", "p1", str(buf)); t.tmux("paste-buffer", "-p", "-b", "p1", "-t", t.session)
    big = t.home / "big.txt"; big.write_bytes((b"y\x1b[0n\xff" * 40000)[:300000])
    t.tmux("load-buffer", "-b", "p2", str(big)); t.tmux("paste-buffer", "-p", "-b", "p2", "-t", t.session)
    t.type("\x1b[0n"); t.keys("y")
    await asyncio.sleep(2 * D + 3)
    r = await result_of(task, 0.1); print("(2) result after odd input:", r)
    s = t.screen(); print("\n".join(s.splitlines()[-10:]))
    a = time.monotonic(); e, st = await call(c, "spock_get_status", {}); print("(2) status call ok in %.2fs" % (time.monotonic() - a), not e)
    if r is None:
        try:
            await t.wait_armed(timeout=15); t.keys("y"); r = await result_of(task, 5); print("(2) honest y after armed:", r)
        except AssertionError as ex:
            print("(2) not armed:", str(ex)[-600:]); t.keys("n"); await result_of(task, 5)
async def main():
    t = Tui(up=D, down=D)
    try:
        await t.wait_for("[running]", timeout=40)
        async with client(t) as c:
            await part1(t, c)
            await part2(t, c)
        print("pane dead:", t.pane_dead())
        for rec in t.audit():
            if rec.get("tool") in ("android_uninstall_app", "attach_decide"): print(json.dumps(short(rec))[:300])
    finally:
        t.kill()
asyncio.run(main())
