"""Attack 13: a second name for the leased phone connects while the phone cannot be read
(shell opens refused / getprop hanging): 'known by its name alone'. B then acts there."""
import sys, json, time
sys.path.insert(0, "/work/attacks/device")
from lib import *

for fault in ({"fault": "refuse_open"}, {"fault": "hang", "command": "getprop"}):
    lab = Lab(n=1)
    try:
        P = lab.adbd[0]; port = P.split(":")[1]; alias = f"localhost:{port}"
        a = Http(lab.serve, "agent-a"); b = Http(lab.serve, "agent-b")
        log(fault, "A lease:", a.call("android_lease_device", {"serial": P})[1].get("action"))
        log("  fault:", lab.sim.ctl(lab.simserial[P], **fault).strip()[:120])
        log("  connect alias:", lab.adb.connect(alias).strip()[:80])
        time.sleep(12)
        log("  clear:", lab.sim.ctl(lab.simserial[P], fault="clear").strip()[:80])
        time.sleep(1)
        err, sc = b.call("android_tap", {"x": 9, "y": 9, "serial": alias})
        log(f"  B tap alias: {'refused/err' if err else 'RAN !!!'} {str(sc.get('error') or json.dumps(sc))[:200]}")
        err, sc = b.call("android_tap", {"x": 9, "y": 9, "serial": alias})
        log(f"  B tap alias again: {'refused/err' if err else 'RAN !!!'} {str(sc.get('error') or json.dumps(sc))[:200]}")
        log("  logs:", [e["message"][:160] for e in b.call("spock_get_logs", {"limit": 200})[1]["entries"] if "ident" in e["message"].lower()][:4])
    finally:
        lab.close()
