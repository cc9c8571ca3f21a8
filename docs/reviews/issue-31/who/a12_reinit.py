"""A12: a 2025 session changes its clientInfo mid-session (a second `initialize` on the same
stdio connection, and on the same HTTP session) — while a call it made is waiting at the person,
and for its next call. What does the person see, what does the record say?"""
import json, time
from lib import *

s = Serve()
try:
    p = Person(s)
    c = Stdio(s, name="trusted-ide", version="1")
    b = bg(c.call, "android_uninstall_app", NOTES, 40)
    a = p.ask()
    log("asked as:", a["client"], a["verified"]["session"])
    r = c.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "control centre", "version": "0.1.0"}})
    log("second initialize:", json.dumps(r)[:200])
    p.approve(a["call_id"])
    log("first call:", wait_box(b))
    b = bg(c.call, "android_uninstall_app", {"packageName": "com.example.shop"}, 40)
    a2 = p.ask()
    log("next call asked as:", a2["client"], a2["verified"]["session"])
    p.deny(a2["call_id"]); wait_box(b)
    for r in s.audit("android_uninstall_app"):
        log("audit:", r["client"], r["outcome"], r["verified"]["session"])
    c.close()
    h = Http(s, name="trusted-http")
    r = httpx.post(s.url, headers=h.h, timeout=10, json={"jsonrpc": "2.0", "id": 50, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "control centre", "version": "0.1.0"}}})
    log("HTTP re-initialize on the same session:", r.status_code, r.text[:200])
    b = bg(h.call, "android_uninstall_app", {"packageName": "com.example.shop"})
    a3 = p.ask()
    log("HTTP call asked as:", a3["client"], a3["verified"])
    p.deny(a3["call_id"]); wait_box(b)
    p.close()
finally:
    s.stop()
