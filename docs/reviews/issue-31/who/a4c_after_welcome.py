"""A4c: the client's yes released the instant the person's `welcome` arrives (the person is
attached by then). Is the call always offered to the person, and never approved by the client?"""
import json, time, threading
from lib import *
from a4_via_client_2025 import Held, YESR, fresh, rec_summary

bad = 0
N = 15
for i in range(N):
    s, h, c = fresh()
    try:
        b = bg(c.call, "android_uninstall_app", NOTES, 60)
        h.wait_asked(1)
        time.sleep(0.05)
        p = Person(s)            # returns right after reading `welcome`
        h.release(0, YESR)       # the client's yes, now that a person is attached
        time.sleep(1.5)
        offered = p.seen("confirm_asked")
        said = p.seen("client_said")
        fin = p.seen("call_finished")
        inst = installed(s)
        if offered and b["t"].is_alive():
            p.deny(offered[0]["ask"]["call_id"])
        wait_box(b, 10)
        r = rec_summary(s)
        line = f"#{i} offered={len(offered)} client_said={len(said)} finished_before_answer={[(f['outcome'], f.get('decision')) for f in fin]} notes_installed={inst} audit={[(x['outcome'], x['decision'], x['decider'][:30] if x['decider'] else None) for x in r]}"
        if not inst:
            bad += 1
            line += "   !! ran on the client's yes while a person was attached"
        log(line)
        p.close()
    finally:
        c.close(); s.stop()
log(f"client's yes ran the call while a person was attached: {bad}/{N}")
