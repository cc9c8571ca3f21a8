"""A5b: 2026-07-28 path: the retry with YES sent the instant the person's welcome arrives.
Does it ever run the call without the person's answer?"""
import json, time
from lib import *
from a5_via_client_2026 import first_round, fresh, recs

ran = 0
for i in range(12):
    s, st = fresh()
    try:
        state, form = first_round(st)
        import socket, os
        # pre-open the retry connection so only the request bytes remain to send
        p = Person(s)
        b = bg(st.call, "android_uninstall_app", NOTES, state, YES, 60)
        time.sleep(1.0)
        offered = p.seen("confirm_asked")
        inst = installed(s)
        if not inst:
            ran += 1
            log(f"trial {i}: RAN; person got {[m['type'] for m in p.all if m['type'] != 'view']}")
        if offered and b["t"].is_alive():
            p.deny(offered[0]["ask"]["call_id"])
        wait_box(b, 10)
        p.close()
    finally:
        s.stop()
log(f"retry YES right after welcome ran the call: {ran}/12")
