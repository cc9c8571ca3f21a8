"""Attack 1: the same phone under other names. Agent A leases the phone as 127.0.0.1:P;
agent B acts on it through every other spelling the adb server(s) know, and through adb's own
target syntaxes (tcp:, model:, host without port, serial@server spelled differently)."""
import sys, json, time
sys.path.insert(0, "/work/attacks/device")
from lib import *

lab = Lab(n=1, extra_adb=1)
try:
    P = lab.adbd[0]
    port = P.split(":")[1]
    names = [f"localhost:{port}", f"127.1:{port}", f"0.0.0.0:{port}", f"127.000.000.001:{port}", f"0x7f000001:{port}", f"2130706433:{port}"]
    for n in names:
        log("connect", n, "->", lab.adb.connect(n).strip()[:120])
    # second server: the phone by its canonical name
    log("adb2 connect", lab.adbs[1].connect(P).strip()[:100])
    log("adb devices:\n" + lab.adb.adb("devices", "-l"))
    time.sleep(2)
    a = Http(lab.serve, "agent-a"); b = Http(lab.serve, "agent-b")
    err, devs = a.call("android_list_devices")
    log("devices:", json.dumps(devs)[:2500])
    err, got = a.call("android_lease_device", {"serial": f"{P}@{lab.adbs[0].endpoint}", "durationSeconds": 600})
    log("A lease:", err, json.dumps(got)[:400])
    adb1 = lab.adbs[0].endpoint; adb2 = lab.adbs[1].endpoint
    tries = [P] + names + [f"{P}@{adb2}", f"{P}@localhost:{lab.adbs[1].port}", f"{P}@{adb1}", f"{P}@localhost:{lab.adbs[0].port}",
             f"tcp:{P}", "127.0.0.1", f"model:Pixel_7", "sim-1", f" {P}", f"{P} ", P.upper(), f"LOCALHOST:{port}",
             f"localhost:{port}@{adb1}", f"[127.0.0.1]:{port}", f"127.0.0.1:0{port}"]
    res = {}
    for t in tries:
        err, sc = b.call("android_tap", {"x": 10, "y": 10, "serial": t})
        res[t] = (err, (sc.get("error") or json.dumps(sc))[:160])
        log(f"B tap serial={t!r}: {'REFUSED/ERR' if err else 'RAN !!!'} :: {res[t][1]}")
    # selection route: B selects the alias then taps without serial
    for t in names:
        err, sc = b.call("android_select_device", {"serial": t})
        e2, sc2 = b.call("android_tap", {"x": 10, "y": 10})
        log(f"B select {t!r}: {err} then tap: {'ERR' if e2 else 'RAN !!!'} {(sc2.get('error') or '')[:120]}")
    ran = [r for r in lab.serve.audit_tool("android_tap") if r.get("client", "").startswith("agent-b") and r.get("outcome") == "ok"]
    log("audit: agent-b taps ok:", [(r.get("device"), r.get("arguments", {}).get("serial")) for r in ran])
    log("audit: agent-b refused:", len([r for r in lab.serve.audit_tool("android_tap") if r.get("client", "").startswith("agent-b") and r.get("outcome") != "ok"]))
    log("sim stats:", lab.sim.ctl(lab.simserial[P], fault="status", stats=True).strip()[:300])
finally:
    lab.close()
