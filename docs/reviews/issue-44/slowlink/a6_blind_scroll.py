"""A6: a request whose arguments are longer than the modal (it must be scrolled to the end
before y counts: "… to approve:"). RTT 2.5 s. The person hammers End/PgDn (blind, e.g. still
scrolling the previous screen) from the moment the agent asks until the request is on their
screen. Keys read before the fence answer must answer nothing -- do blind scroll keys still
scroll the new request and count as having read it (so that the first screen the person ever
sees is its tail, already approvable)?"""
import asyncio, subprocess, sys
from lib import *
D = 1.25
KEYSEQ = sys.argv[1].split(",") if len(sys.argv) > 1 else ["NPage", "End"]
async def main():
    srv = None
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
        async with client(t) as c:
            text = " ".join(f"w{i:04d}" for i in range(900))   # ~5400 chars, wraps over many modal lines
            task = asyncio.create_task(call(c, "android_call_app_function", {"packageName": "com.example.notes", "functionId": "deleteNote", "arguments": {"title": "HEAD-SECRET " + text + " TAIL"}}))
            a = time.monotonic(); n = 0
            while MODAL not in t.screen() and time.monotonic() - a < 20:
                t.keys(KEYSEQ[n % len(KEYSEQ)]); n += 1; await asyncio.sleep(0.1)
            first = t.screen()
            print("blind scroll keys:", n, "| request on screen at +%.2f" % (time.monotonic() - a))
            print("FIRST SIGHT: head visible:", "HEAD-SECRET" in first, "| tail visible:", "TAIL" in first,
                  "| 'to approve' shown:", "to approve" in first)
            await asyncio.sleep(2 * D + 1)
            s = t.screen()
            print("AFTER 2RTT: head visible:", "HEAD-SECRET" in s, "| tail visible:", "TAIL" in s, "| 'to approve' shown:", "to approve" in s)
            print("\n".join(l for l in s.splitlines() if "approve" in l.lower() or "available" in l.lower() or "HEAD" in l or "TAIL" in l))
            r = await result_of(task, 0.1); print("RESULT so far:", r)
            if r is None:
                t.keys("y"); await asyncio.sleep(2 * D + 0.5); r = await result_of(task, 0.1)
                print("a single y now (without scrolling, having seen only the above):", r)
                if r is None: t.keys("n"); await result_of(task, 5)
        for rec in t.audit():
            if rec.get("tool") == "android_call_app_function": print(json.dumps(short(rec))[:300])
    finally:
        t.kill()
        if srv: srv.terminate(); srv.wait(10)
asyncio.run(main())
