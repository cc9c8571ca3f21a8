"""Attack 13b: reproduce 13 (getprop hanging while a second name connects) and try B's
action while the identity read is still hanging, right after, and later."""
import sys, json, time
sys.path.insert(0, "/work/attacks/device")
from lib import *

for run in range(2):
    lab = Lab(n=1)
    try:
        P = lab.adbd[0]; port = P.split(":")[1]; alias = f"localhost:{port}"
        a = Http(lab.serve, "agent-a"); b = Http(lab.serve, "agent-b")
        log(f"run {run}: A lease:", a.call("android_lease_device", {"serial": P})[1].get("action"))
        lab.sim.ctl(lab.simserial[P], fault="hang", command="getprop")
        log("  connect alias:", lab.adb.connect(alias).strip()[:80])
        def tap(label):
            t0 = time.monotonic()
            err, sc = b.call("android_tap", {"x": 9, "y": 9, "serial": alias}, timeout=60)
            log(f"  [{label}] B tap alias: {'refused/err' if err else 'RAN !!!'} ({time.monotonic()-t0:.1f}s) {str(sc.get('error') if isinstance(sc, dict) else sc)[:130]}")
        time.sleep(2); tap("during hang, t=2s")
        time.sleep(4); tap("during hang, t=6s")
        time.sleep(6); tap("during hang, t=12s")
        lab.sim.ctl(lab.simserial[P], fault="clear")
        tap("just after clear"); time.sleep(2); tap("2s after clear")
        ok = [r for r in lab.serve.audit_tool("android_tap") if r["client"].startswith("agent-b") and r["outcome"] == "ok"]
        log("  audit ok taps by B on the leased phone:", [(r["seq"], r["device"]) for r in ok])
    finally:
        lab.close()
