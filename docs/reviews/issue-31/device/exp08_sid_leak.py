"""Attack 8: can agent B learn agent A's Mcp-Session-Id from anything an agent may read
(spock_get_logs, spock_get_status, resources, errors, batch history, audit-derived tools)?"""
import sys, json, time
sys.path.insert(0, "/work/attacks/device")
from lib import *
lab = Lab(n=1)
try:
    P = lab.adbd[0]
    a = Http(lab.serve, "agent-a", "1.0")
    a.call("android_lease_device", {"serial": P})
    a.call("android_tap", {"x": 1, "y": 1})
    a.call("android_batch_run_inline", {"steps": [{"tool": "android_tap", "arguments": {"x": 1, "y": 1}}]})
    time.sleep(1)
    b = Http(lab.serve, "agent-b", "1.0")
    found = {}
    probes = {
        "logs": b.call("spock_get_logs", {"limit": 1000}),
        "logs_debug": b.call("spock_get_logs", {"limit": 1000, "level": "trace"}),
        "status": b.call("spock_get_status"),
        "batch_hist": b.call("android_batch_history_list", {}),
        "tap_err": b.call("android_tap", {"x": 1, "y": 1}),
        "res_list": b.rpc("resources/list"),
    }
    for k, v in probes.items():
        s = json.dumps(v)
        found[k] = (a.sid in s, a.sid[:8] in s, a.sid.replace("-", "")[:8] in s, len(s))
    log("A sid:", a.sid)
    log("leak check (full sid, first8, hex8, bytes):", found)
    srv_err = open(lab.serve.err).read()
    log("serve stderr contains sid:", a.sid in srv_err)
    log("logs sample:", json.dumps(probes["logs"])[:600])
finally:
    lab.close()
