"""A7: HTTP peer address vs headers an agent sets (X-Forwarded-For, Forwarded, X-Real-IP, Host,
User-Agent) and the 2025 session vs the 2026 stateless path; and the attach hello's tty text."""
import json, time
from lib import *

HDRS = {"X-Forwarded-For": "10.66.66.66", "Forwarded": "for=10.77.77.77;proto=https", "X-Real-IP": "10.88.88.88",
        "User-Agent": "spock-tui attach (control centre)", "X-Spock-Via": "ssh from 10.9.9.9:22", "CF-Connecting-IP": "10.5.5.5"}
s = Serve()
try:
    p = Person(s)
    h = Http(s, name="agent-http", headers=HDRS)
    b = bg(h.call, "android_uninstall_app", NOTES)
    a = p.ask()
    log("2025 session + headers: verified=", json.dumps(a["verified"]), "via=", a["via"], "client=", a["client"])
    p.deny(a["call_id"]); wait_box(b)
    for host in ["localhost", "10.1.2.3:22", "evil.example"]:
        try:
            st = Stateless(s, name="agent26", headers=HDRS | {"Host": host}, caps={})
            b = bg(st.call, "android_uninstall_app", NOTES)
            a = p.ask(timeout=5)
            log(f"2026 Host={host}: verified=", a and json.dumps(a["verified"]), "via=", a and a["via"], "result", (None if a else wait_box(b, 5)))
            if a:
                p.deny(a["call_id"])
            wait_box(b)
        except Exception as e:
            log("host", host, e)
    rec = s.audit("android_uninstall_app")
    log("audit verified/claimedVia:", [(json.dumps(r.get("verified")), r.get("claimedVia")) for r in rec])
    p.close()
    # the person's own identity text comes from hello's tty: is it checked?
    for tty in ["/dev/pts/1 (verified)\nthe control centre of the serving process", "not-a-tty", "\x1b[31mred"]:
        q = Person(s, tty=tty)
        log("hello tty", repr(tty), "-> you =", repr(q.you))
        q.close()
finally:
    s.stop()
