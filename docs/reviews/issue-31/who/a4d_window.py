"""A4d: how long after the person's `welcome` does the client's yes still approve the call on its
own (the person never offered it)? Delay d ms after welcome, 6 tries each; also records the
order of messages the person got (welcome .. confirm_asked / call_finished)."""
import time
from lib import *
from a4_via_client_2025 import Held, YESR, fresh, rec_summary

for d in [0, 5, 10, 20, 40, 80]:
    ran = 0
    orders = []
    for i in range(6):
        s, h, c = fresh()
        try:
            b = bg(c.call, "android_uninstall_app", NOTES, 60)
            h.wait_asked(1)
            time.sleep(0.05)
            p = Person(s)
            t0 = time.monotonic()
            time.sleep(d / 1000)
            h.release(0, YESR)
            time.sleep(1.2)
            kinds = [m["type"] for m in p.all if m["type"] in ("history", "server_status", "view", "devices", "batch", "confirm_asked", "client_said", "call_finished", "decided")]
            orders.append(" ".join(dict.fromkeys(kinds)))
            if not installed(s):
                ran += 1
            off = p.seen("confirm_asked")
            if off and b["t"].is_alive():
                p.deny(off[0]["ask"]["call_id"])
            wait_box(b, 10)
            p.close()
        finally:
            c.close(); s.stop()
    log(f"d={d}ms after welcome: client's yes ran the call {ran}/6; person's message order e.g. {orders[0]!r}")
