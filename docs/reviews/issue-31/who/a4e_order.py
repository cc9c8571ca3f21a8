"""A4e: evidence for A4c: for a trial where the client's yes (sent after the person's welcome)
ran the call, the full sequence of message types the person got, and the audit record."""
import json, time
from lib import *
from a4_via_client_2025 import Held, YESR, fresh, rec_summary

for i in range(10):
    s, h, c = fresh()
    try:
        b = bg(c.call, "android_uninstall_app", NOTES, 60)
        h.wait_asked(1)
        time.sleep(0.05)
        p = Person(s)
        t_welcome = time.time()
        h.release(0, YESR)
        time.sleep(1.2)
        if not installed(s):
            seq = ["welcome"] + [m["type"] + (f"({m.get('outcome')},{m.get('decision')})" if m["type"] == "call_finished" else "") for m in p.all if m["type"] not in ("view",)]
            log(f"trial {i}: RAN on the client's yes; welcome at {t_welcome:.3f}; person got: {' '.join(seq)}")
            log("   history preload records:", [ (r.get('tool'), r.get('outcome')) for m in p.all if m['type']=='history' for r in m['records']])
            log("   audit:", json.dumps(rec_summary(s)))
            p.close()
            break
        off = p.seen("confirm_asked")
        if off and b["t"].is_alive():
            p.deny(off[0]["ask"]["call_id"])
        wait_box(b, 10)
        p.close()
        log(f"trial {i}: held (offered={len(off)})")
    finally:
        c.close(); s.stop()
