"""A4: [confirm] via_client = true, 2025-era stdio session (elicitation/create), a person who
attaches mid-round. Scenarios named S1..S6; each prints what the person was sent, what ran
(the demo device's packages) and the audit record."""
import json, sys, threading, time
from lib import *

YESR = {"action": "accept", "content": {"approve": True}}


class Held:
    """elicitation answers held until released; answer per call order."""
    def __init__(self):
        self.asked = []
        self.rel = {}
        self.ans = {}

    def __call__(self, params):
        i = len(self.asked)
        self.asked.append(params)
        ev = self.rel.setdefault(i, threading.Event())
        ev.wait(60)
        return self.ans.get(i, {"action": "decline"})

    def release(self, i, ans):
        self.ans[i] = ans
        self.rel.setdefault(i, threading.Event()).set()

    def wait_asked(self, n, timeout=10):
        d = time.monotonic() + timeout
        while len(self.asked) < n and time.monotonic() < d:
            time.sleep(0.02)
        return len(self.asked) >= n


def rec_summary(s, n=None):
    out = []
    for r in s.audit():
        if r.get("tool") in ("android_uninstall_app", "android_clear_app_data"):
            out.append({k: r.get(k) for k in ("seq", "tool", "arguments", "outcome", "decision", "decider", "client", "error")})
    return out[-n:] if n else out


def fresh(secs=30):
    s = Serve(config=VIA_CLIENT.format(secs=secs))
    h = Held()
    c = Stdio(s, name="agent", version="1", on_elicit=h)
    return s, h, c


def S1():
    log("\n### S1 person attaches while the client is asked; client says yes (client_said); person DETACHES without answering")
    s, h, c = fresh()
    try:
        b = bg(c.call, "android_uninstall_app", NOTES, 60)
        h.wait_asked(1)
        p = Person(s)
        a = p.ask(timeout=5)
        log("person offered:", bool(a), a and a["verified"])
        p.send(type="displayed", call_id=a["call_id"])
        h.release(0, YESR)
        said = p.until("client_said", timeout=5)
        log("client_said:", said)
        time.sleep(0.3)
        log("call done before detach?", not b["t"].is_alive())
        p.close()
        r = wait_box(b, 40)
        log("call result after the person detached:", json.dumps(r)[:300])
        log("notes installed:", installed(s))
        log("elicitations sent to client:", len(h.asked))
        log("audit:", json.dumps(rec_summary(s), indent=None))
    finally:
        c.close(); s.stop()


def S2():
    log("\n### S2 person attached FIRST (call asked of the person), person detaches: does the client get asked and approve?")
    s, h, c = fresh()
    try:
        p = Person(s)
        b = bg(c.call, "android_uninstall_app", NOTES, 60)
        a = p.ask(timeout=5)
        log("person offered:", bool(a))
        p.send(type="displayed", call_id=a["call_id"])
        time.sleep(0.3)
        p.close()
        if h.wait_asked(1, timeout=5):
            log("client was asked after the person left -> answering yes")
            h.release(0, YESR)
        r = wait_box(b, 40)
        log("call result:", json.dumps(r)[:300])
        log("notes installed:", installed(s))
        log("audit:", json.dumps(rec_summary(s)))
    finally:
        c.close(); s.stop()


def S3():
    log("\n### S3 race: client's yes released d ms after the person starts attaching (loop)")
    for d in [0, 1, 2, 3, 5, 8, 12, 20]:
        s, h, c = fresh()
        try:
            b = bg(c.call, "android_uninstall_app", NOTES, 60)
            h.wait_asked(1)
            t = threading.Timer(d / 1000, h.release, args=(0, YESR))
            t.start()
            p = Person(s)
            a = p.ask(timeout=2)
            got = p.until("decided", timeout=2) if a else None
            r = wait_box(b, 10) if not a else None
            if a and not got:
                p.deny(a["call_id"]); got = p.until("decided", timeout=3)
                r = wait_box(b, 10)
            inst = installed(s)
            log(f"d={d}ms offered={bool(a)} decided={got and (got['approved'], got['by'])} notes_installed={inst} "
                f"audit={[(x['outcome'], x['decision'], x['decider']) for x in rec_summary(s)]}")
            if a and not inst:
                log("   !! the person was offered the call, and it ran without the person's answer")
            p.close()
        finally:
            c.close(); s.stop()


def S4():
    log("\n### S4 person denies; the client's yes arrives afterwards")
    s, h, c = fresh()
    try:
        b = bg(c.call, "android_uninstall_app", NOTES, 60)
        h.wait_asked(1)
        p = Person(s)
        a = p.ask(timeout=5)
        p.deny(a["call_id"])
        d = p.until("decided", timeout=5)
        h.release(0, YESR)
        r = wait_box(b, 20)
        time.sleep(0.5)
        log("decided:", d, "result:", json.dumps(r)[:200], "notes installed:", installed(s))
        log("audit:", json.dumps(rec_summary(s)))
        p.close()
    finally:
        c.close(); s.stop()


def S5():
    log("\n### S5 three queued calls asked of the client; a person attaches; client says yes to all; person approves only #2")
    s, h, c = fresh()
    try:
        calls = [("android_uninstall_app", NOTES), ("android_uninstall_app", {"packageName": "com.example.shop"}),
                 ("android_clear_app_data", NOTES)]
        boxes = []
        for i, (tool, args) in enumerate(calls):
            boxes.append(bg(c.call, tool, args, 60))
            h.wait_asked(i + 1)
        p = Person(s)
        asks = [p.ask(timeout=5) for _ in range(3)]
        log("offered:", [(a["call_id"], a["tool"], a["arguments"]) for a in asks if a])
        for a in asks:
            p.send(type="displayed", call_id=a["call_id"])
        for i in range(3):
            h.release(i, YESR)
        time.sleep(0.9)
        log("client_said:", [(m["call_id"], m["approved"]) for m in p.seen("client_said")])
        shop = [a for a in asks if a["arguments"] == {"packageName": "com.example.shop"}][0]
        p.send(type="decide", call_id=shop["call_id"], approve=True)
        p.until("decided", call_id=shop["call_id"], timeout=5)
        time.sleep(1)
        log("done before others decided:", [not bx["t"].is_alive() for bx in boxes])
        log("notes installed:", installed(s), "shop installed:", installed(s, "com.example.shop"))
        for a in asks:
            if a is not shop:
                p.deny(a["call_id"])
        for bx in boxes:
            wait_box(bx, 20)
        log("audit:", json.dumps(rec_summary(s)))
        p.close()
    finally:
        c.close(); s.stop()


def S6():
    log("\n### S6 the client answers with an error / garbage / accept without approve while a person holds it")
    for label, ans in [("accept {} ", {"action": "accept", "content": {}}),
                       ("accept approve='true'", {"action": "accept", "content": {"approve": "true"}}),
                       ("cancel", {"action": "cancel"})]:
        s, h, c = fresh()
        try:
            b = bg(c.call, "android_uninstall_app", NOTES, 60)
            h.wait_asked(1)
            p = Person(s)
            a = p.ask(timeout=5)
            h.release(0, ans)
            m = None
            d = time.monotonic() + 3
            while time.monotonic() < d and m is None:
                for x in p.all:
                    if x["type"] in ("client_said", "decided"):
                        m = x
                time.sleep(0.05)
            log(f"{label}: person got {m}")
            if b["t"].is_alive():
                p.deny(a["call_id"])
            wait_box(b, 20)
            p.close()
        finally:
            c.close(); s.stop()


if __name__ == "__main__":
    for name in (sys.argv[1:] or ["S1", "S2", "S3", "S4", "S5", "S6"]):
        globals()[name]()
