"""Attack 11: the lease changes hands while the FORMER holder's destructive call waits.
A leases P (10 s), asks clear_app_data on P, the person looks at the modal; A's lease is
released (i) / expires (ii), B takes P. The person says yes to A's call. Does it run on B's
leased phone? And (iii): B's lease is released just before the yes for a call B's lease had
withdrawn: nothing should revive."""
import sys, json, time
sys.path.insert(0, "/work/attacks/device")
from lib import *

lab = Lab(n=1)
try:
    P = lab.adbd[0]
    person = Person(lab.serve)
    for mode in ("release", "expire"):
        a = Http(lab.serve, "agent-a"); b = Http(lab.serve, "agent-b")
        log(f"[{mode}] A lease:", a.call("android_lease_device", {"serial": P, "durationSeconds": 10})[1].get("action"))
        box = bg(a.call, "android_clear_app_data", {"packageName": "com.example.notes", "serial": P})
        ask = person.ask(tool="android_clear_app_data"); cid = ask["call_id"]
        person.send(type="displayed", call_id=cid)
        if mode == "release":
            log(f"[{mode}] A release:", a.call("android_lease_device", {"serial": P, "release": True})[1].get("action"))
        else:
            time.sleep(11)
        log(f"[{mode}] B lease:", b.call("android_lease_device", {"serial": P})[1].get("action"))
        time.sleep(0.8)
        person.send(type="decide", call_id=cid, approve=True)
        r = wait_box(box)
        log(f"[{mode}] A's call:", "RAN !!!" if not r[0] else "not run", json.dumps(r)[:220])
        log(f"[{mode}] person saw:", [(m["type"], m.get("why") or m.get("code") or m.get("approved")) for m in person.all if m.get("call_id") == cid])
        b.call("android_lease_device", {"serial": P, "release": True})
        a.delete(); b.delete()
    time.sleep(0.5)
    for r in lab.serve.audit():
        if r["tool"] in ("android_clear_app_data", "android_lease_device"):
            log("  audit", r["seq"], r["client"], r["tool"], r.get("arguments", {}).get("event", ""), r["outcome"], str(r.get("error") or "")[:120])
finally:
    lab.close()
