"""A1: a request replaced while its fence is in flight (RTT 2.5 s, in-process control centre).
Request A (uninstall notes) is drawn and fenced (query Q1). Request B (uninstall shop) waits
behind it. 2.0 s after A was drawn -- before Q1's answer is back -- a second, fast terminal
(raw attach client) denies A, so B is drawn and fenced (Q2). Q1's answer arrives 0.5 s later.
If the control centre takes Q1's answer as B's fence, B arms ~1.9 s before the person could see
it, and a `y` typed while the screen still showed A (or nothing) approves B.
The person: `y` every 50 ms until B's package is in the modal, then y, Tab, Enter."""
import asyncio, sys
from lib import *
D = float(sys.argv[1]) if len(sys.argv) > 1 else 1.25
GAP = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
MODE = sys.argv[3] if len(sys.argv) > 3 else "deny"   # deny | cancel
def b_visible(s):
    return MODAL in s and "com.example.shop" in "\n".join(l for l in s.splitlines() if "shop" in l and "uninstall" not in l.lower()) or (MODAL in s and "com.example.notes" not in s and "shop" in s)
async def main():
    raw = None; srv = None
    if os.environ.get("ATTACH"):
        home = pathlib.Path(tempfile.mkdtemp(prefix="slowlink-srv-")); (home / "config").mkdir()
        srv = subprocess.Popen([EXE, "serve", "--demo", "--port", "0", "--toolsets", "all"], env={**os.environ, "SPOCK_TUI_HOME": str(home)},
                               stdout=subprocess.DEVNULL, stderr=open(home / "serve.err", "w"))
        for _ in range(300):
            if (home / "run" / "control.sock").exists() and (home / "run" / "endpoint.json").exists(): break
            time.sleep(0.1)
        t = Tui(up=D, down=D, home=home, mode="attach")
    else:
        t = Tui(up=D, down=D)
    try:
        await t.wait_for("[running]" if not srv else "attached", timeout=40)
        raw = Raw(t.home)
        assert await raw.wait(lambda m: m.get("type") == "welcome"), raw.msgs
        async with client(t, "agent-a") as ca, client(t, "agent-b") as cb:
            ta = asyncio.create_task(call(ca, "android_uninstall_app", {"packageName": "com.example.notes"}))
            ma = await raw.wait(lambda m: m.get("type") == "confirm_asked", 15)
            t0 = time.monotonic(); ida = ma["ask"]["call_id"]
            tb = asyncio.create_task(call(cb, "android_uninstall_app", {"packageName": "com.example.shop"}))
            mb = await raw.wait(lambda m: m.get("type") == "confirm_asked" and m["ask"]["call_id"] != ida, 15)
            idb = mb["ask"]["call_id"]; print("A", ida, "B", idb, "B asked at +%.2f" % (time.monotonic() - t0))
            typed = []; withdrawn = False
            deadline = t0 + 20
            while time.monotonic() < deadline:
                now = time.monotonic() - t0
                if not withdrawn and now >= GAP:
                    if MODE == "deny": raw.send({"type": "decide", "call_id": ida, "approve": False})
                    else: ta.cancel()
                    withdrawn = True; print("A removed at +%.2f" % now)
                s = t.screen()
                if withdrawn and MODAL in s and "com.example.notes" not in s.split(MODAL, 1)[1]:
                    print("B visible on the person's screen at +%.2f" % now); break
                t.keys("y"); typed.append(round(now, 2)); await asyncio.sleep(0.05)
            t.keys("y"); t.keys("Tab"); t.keys("Enter")
            print("y typed", len(typed), "times, last before sight at +%.2f" % typed[-1])
            await asyncio.sleep(2 * D + 1.0)
            r = await result_of(tb, 0.1)
            print("B RESULT:", r)
            print(t.screen())
            if r is None:
                raw.send({"type": "decide", "call_id": idb, "approve": False}); await result_of(tb, 5)
            e, st = await call(ca, "android_list_packages", {})
            print("shop still installed:", "com.example.shop" in json.dumps(st), "notes:", "com.example.notes" in json.dumps(st))
        for rec in t.audit():
            if rec.get("tool") in ("android_uninstall_app", "attach_decide"): print(json.dumps(short(rec))[:400])
    finally:
        if raw: raw.close()
        t.kill()
        if srv: srv.terminate(); srv.wait(10)
asyncio.run(main())
