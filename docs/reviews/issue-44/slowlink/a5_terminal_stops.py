"""A5: the person's terminal stops reading and sending (the link stops reading both ptys, so
the program's writes back up: a frozen SSH client / XOFF; SIGSTOP does not work, tmux SIGCONTs it) for STOP seconds at a 5 s round trip. Meanwhile agents keep calling
(read-only calls every 0.5 s, timed) and one asks for a destructive call; the person, frozen,
presses y five times (queued). Then the terminal resumes. Does the server keep serving? Does
the control centre survive? Do the queued keys (typed before the request was ever seen)
approve it?"""
import asyncio, signal, sys
from lib import *
STOP = float(sys.argv[1]) if len(sys.argv) > 1 else 25.0
D = 2.5
async def main():
    t = Tui(up=D, down=D)
    try:
        await t.wait_for("[running]", timeout=40)
        await asyncio.sleep(2)
        pid = None
        for p in os.listdir("/proc"):
            if p.isdigit():
                try: cl = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")
                except Exception: continue
                if any(x.endswith(b"ctl_link.py") for x in cl) and str(t.ctl).encode() in cl: pid = int(p)
        print("link process", pid, open(f"/proc/{pid}/cmdline","rb").read()[:80])
        async with client(t) as c:
            t.set_link(freeze=True); t0 = time.monotonic(); print("link stopped")
            lat = []
            task = None
            while time.monotonic() - t0 < STOP:
                a = time.monotonic()
                try:
                    await asyncio.wait_for(call(c, "android_get_battery_info", {}), 10)
                    await asyncio.wait_for(call(c, "spock_get_status", {}), 10)
                    lat.append(round(time.monotonic() - a, 2))
                except Exception as e:
                    lat.append("FAIL " + type(e).__name__)
                if task is None and time.monotonic() - t0 > 2:
                    task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
                    await asyncio.sleep(3)
                    for _ in range(5): t.keys("y"); await asyncio.sleep(0.2)
                await asyncio.sleep(0.3)
            print("read-only call latencies while stopped:", lat)
            t.set_link(freeze=False); t1 = time.monotonic(); print("link resumed at %.3f (wall)" % time.time())
            seen = None
            while time.monotonic() - t1 < 2 * D + 2:
                if seen is None and MODAL in t.screen(): seen = time.monotonic() - t1; print("request first on the person's screen at resume+%.2f" % seen)
                r = await result_of(task, 0.05)
                if r is not None: print("call finished at resume+%.2f (wall %.3f)" % (time.monotonic() - t1, time.time())); break
                await asyncio.sleep(0.1)
            r = await result_of(task, 0.1)
            print("DESTRUCTIVE RESULT:", r)
            s = t.screen(); print("\n".join(s.splitlines()[-14:]))
            if r is None:
                t.keys("n"); await result_of(task, 10)
            e, st = await call(c, "android_list_packages", {})
            print("notes still installed:", "com.example.notes" in json.dumps(st))
        print("pane dead:", t.pane_dead())
        print("LINK:", "\n".join(l for l in t.linklog().splitlines()))
        for rec in t.audit():
            if rec.get("tool") in ("android_uninstall_app", "attach_decide"): print(json.dumps(short(rec))[:400])
    finally:
        t.kill()
asyncio.run(main())
