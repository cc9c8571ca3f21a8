"""Attack 6: who is who for leases over stateless 2026-07-28 HTTP."""
import sys, json, time
sys.path.insert(0, "/work/attacks/device")
from lib import *

def show(label, r):
    err, sc = r
    log(f"{label}: {'refused/err' if err else 'RAN/OK'} :: {str(sc.get('error') if isinstance(sc, dict) and sc.get('error') else json.dumps(sc))[:170]}")

lab = Lab(n=2)
try:
    P, Q = lab.adbd
    # 1. session holder A; stateless B claims A's name/version
    a = Http(lab.serve, "agent-a", "1.0")
    show("A(session) lease P", a.call("android_lease_device", {"serial": P}))
    fake = Stateless(lab.serve, "agent-a", "1.0")
    show("stateless 'agent-a/1.0' tap P", fake.call("android_tap", {"x": 1, "y": 1, "serial": P}))
    show("stateless 'agent-a/1.0' release P", fake.call("android_lease_device", {"serial": P, "release": True}))
    # 2. stateless holder S; another stateless with the same name
    s = Stateless(lab.serve, "agent-s", "3.0")
    show("S(stateless) lease Q", s.call("android_lease_device", {"serial": Q}))
    for nm, ver in (("agent-s", "3.0"), ("Agent-S", "3.0"), ("agent-s ", "3.0"), ("agent-s", "3.0 "), ("agent-s\u200b", "3.0")):
        x = Stateless(lab.serve, nm, ver)
        show(f"stateless {nm!r}/{ver!r} tap Q", x.call("android_tap", {"x": 1, "y": 1, "serial": Q}))
    # a session client with S's name
    h = Http(lab.serve, "agent-s", "3.0")
    show("session 'agent-s/3.0' tap Q", h.call("android_tap", {"x": 1, "y": 1, "serial": Q}))
    # 3. a 2026 request carrying A's Mcp-Session-Id (if an agent learns it)
    withsid = Stateless(lab.serve, "agent-z", "9", extra_headers={"Mcp-Session-Id": a.sid})
    show("stateless + A's Mcp-Session-Id tap P", withsid.call("android_tap", {"x": 1, "y": 1, "serial": P}))
    # 4. 2025 session request with A's session id but B's protocol header mix
    mix = Http(lab.serve, "agent-b", sid=a.sid, proto="2026-07-28")
    show("session-id reuse, 2026 header, tap P", mix.call("android_tap", {"x": 1, "y": 1, "serial": P}))
    # 5. clientInfo in a 2025 session request's _meta
    b = Http(lab.serve, "agent-b", "1.0")
    m = b.rpc("tools/call", {"name": "android_tap", "arguments": {"x": 1, "y": 1, "serial": Q},
                              "_meta": {"io.modelcontextprotocol/clientInfo": {"name": "agent-s", "version": "3.0"},
                                        "io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
    log("session B with _meta clientInfo agent-s/3.0 tap Q:", json.dumps(m)[:250])
    time.sleep(0.5)
    for r in lab.serve.audit():
        if r["tool"] in ("android_tap", "android_lease_device"):
            log("  audit", r["seq"], r["client"], r["transport"], r["tool"], r.get("device"), r["outcome"])
finally:
    lab.close()
