"""Smoke: the harness works; print a confirm_asked for a stdio call."""
import json
from lib import *

s = Serve()
try:
    p = Person(s)
    log("welcome", p.welcome)
    c = Stdio(s, name="smoke", version="1")
    b = bg(c.call, "android_uninstall_app", NOTES)
    a = p.ask()
    log("ask", json.dumps(a, indent=1))
    p.deny(a["call_id"])
    log("result", wait_box(b))
    c.close(); p.close()
    log("audit", json.dumps(s.audit("android_uninstall_app")[-1], indent=1))
finally:
    s.stop()
