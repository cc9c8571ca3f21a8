"""A10: the desktop notification (OSC 9 / OSC 777, wrapped in tmux's DCS passthrough) carries
the asker's client name -- an agent-controlled string. A name holding BEL / ST / ESC could end
the OSC early and put raw sequences (a DSR: a forged fence answer from the terminal itself, an
OSC title) on the person's terminal. RTT 2.5 s; y typed every 50 ms until the modal is seen.
Oracle: raw program output around 'approval needed', pane title, ESC[5n written vs ESC[0n
answered, and whether a blind y approves."""
import asyncio, sys
from lib import *
NAME = "ev\x07\x1b\\\x1b[5n\x1b]2;PWNED\x07;x\u009c\x1b\x1b[5nil"
async def main():
    t = Tui(up=1.25, down=1.25)
    rawdown = t.home / "rawdown.bin"; t.set_link(rawdown=str(rawdown))
    try:
        await t.wait_for("[running]", timeout=40)
        async with client(t, NAME) as c:
            task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
            a = time.monotonic(); n = 0
            while MODAL not in t.screen() and time.monotonic() - a < 20:
                t.keys("y"); n += 1; await asyncio.sleep(0.05)
            t.keys("y"); t.keys("Tab"); t.keys("Enter")
            print("y typed", n + 1, "until the modal was on screen")
            await asyncio.sleep(3.5)
            r = await result_of(task, 0.1); print("RESULT:", r)
            if r is None: t.keys("n"); await result_of(task, 5)
        data = rawdown.read_bytes()
        i = 0
        while True:
            i = data.find(b"approval needed", i + 1)
            if i < 0: break
            print("notification:", repr(data[i - 30:i + 90]))
        L = t.linklog(); print("ESC[5n written:", data.count(b"\x1b[5n"), "ESC[0n answers:", L.count("[0n"), "OSC title raw:", data.count(b"\x1b]2;PWNED"))
        print("pane title:", repr(t.title()), "pane dead:", t.pane_dead())
        for rec in t.audit():
            if rec.get("tool") == "android_uninstall_app": print(json.dumps(short(rec))[:300])
    finally:
        t.kill()
asyncio.run(main())
