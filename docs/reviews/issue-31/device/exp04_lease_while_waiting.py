"""Attack 4: B's destructive call waits for the person; A leases the same phone meanwhile
under another name (alias on the same adb server / the same phone via a second adb server),
or A takes and immediately releases the lease, or B's own lease is released and A takes it.
Is B's request withdrawn, and if the person says yes, does it run?"""
import sys, json, time, os
sys.path.insert(0, "/work/attacks/device")
from lib import *

def scenario(lab, person, label, b_serial, a_serial, a_action):
    a = Http(lab.serve, "agent-a"); b = Http(lab.serve, "agent-b")
    box = bg(b.call, "android_clear_app_data", {"packageName": "com.example.notes", "serial": b_serial})
    ask = person.ask(tool="android_clear_app_data")
    cid = ask["call_id"]
    person.send(type="displayed", call_id=cid)
    a_action(a, a_serial)
    time.sleep(1.0)
    person.send(type="decide", call_id=cid, approve=True)
    r = wait_box(box, 30)
    seen = [(m["type"], m.get("why") or m.get("code") or m.get("outcome") or m.get("approved")) for m in person.all if m.get("call_id") == cid]
    rec = [x for x in lab.serve.audit_tool("android_clear_app_data") if x["client"].startswith("agent-b")][-1]
    verdict = "RAN !!!" if (not r[0] if isinstance(r, tuple) else False) else "not run"
    log(f"[{label}] B result: {verdict} {json.dumps(r)[:200]}")
    log(f"   person saw: {seen}")
    log(f"   audit: outcome={rec['outcome']} device={rec['device']} err={str(rec.get('error'))[:160]}")
    try: a.call("android_lease_device", {"release": True, "serial": a_serial})
    except Exception: pass
    a.delete(); b.delete()

lab = Lab(n=1, extra_adb=1)
try:
    P = lab.adbd[0]; port = P.split(":")[1]
    lab.adb.connect(f"localhost:{port}")
    lab.adbs[1].connect(P)
    time.sleep(1)
    person = Person(lab.serve)
    A1 = f"{P}@{lab.adbs[0].endpoint}"; A2 = f"{P}@{lab.adbs[1].endpoint}"; AL = f"localhost:{port}"
    take = lambda a, s: log("   A lease:", a.call("android_lease_device", {"serial": s})[1].get("action"))
    scenario(lab, person, "alias same server", A1, AL, take)
    scenario(lab, person, "second adb server", A1, A2, take)
    def take_release(a, s):
        log("   A take:", a.call("android_lease_device", {"serial": s})[1].get("action"))
        log("   A release:", a.call("android_lease_device", {"serial": s, "release": True})[1].get("action"))
    scenario(lab, person, "take then release", A1, AL, take_release)
    def take_disconnect(a, s):
        log("   A take:", a.call("android_lease_device", {"serial": s, "durationSeconds": 10})[1].get("action"))
        log("   A DELETE session:", a.delete())
    scenario(lab, person, "take then session end", A1, A2, take_disconnect)
    ref = [r for r in lab.serve.audit() if r.get("outcome") == "refused"]
    log("refused records:", len(ref))
finally:
    lab.close()
