"""Goal 1: read-only records are anchored only by the 3 s tick. The agent makes a call it wants
forgotten (here: android_list_packages, android_get_logcat - reads), kill -9s its own server
within the tick, cuts those records off the end and restarts. Root's verify --anchors is asked."""
from lab import *

async def main():
    lab = Lab(); tmp = tmpdir()
    try:
        s = lab.server(tmp, "tick", config=VIA_CLIENT)
        async with s.client(elicitation_callback=approve) as c:
            await reads(c, 2)
            await asyncio.sleep(4)                       # let the tick anchor seq 2
            n_before = len(anchors(lab, s))
            for tool in ("android_list_packages", "android_get_logcat"):
                err, r = await call(c, tool, {}); print(tool, "error" if err else "ok")
            os.kill(s.proc.pid, signal.SIGKILL)          # within the 3 s tick
        s.proc.wait()
        print("anchors:", [short(l) for l in anchors(lab, s)])
        print("records:", [(r["seq"], r["tool"]) for r in recs(lab, s)])
        lab.tamper(s, lambda t: (t.write(t.lines()[:2]), t.state_to_head()))
        s2 = lab.server(tmp, "tick", config=VIA_CLIENT, home=s)
        async with s2.client() as c:
            await reads(c, 1)
        stop(s2); s2.wait_for_anchor("stop")
        print("records after:", [(r["seq"], r["tool"]) for r in recs(lab, s2)])
        show("after cutting the unticked reads", lab, s2)
    finally:
        lab.close()
import os
asyncio.run(main())
