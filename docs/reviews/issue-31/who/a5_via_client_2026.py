"""A5: [confirm] via_client = true, 2026-07-28 stateless path (input_required + requestState)
with a person attaching mid-round. T1..T6."""
import json, sys, threading, time
from lib import *


def first_round(st, args=NOTES, tool="android_uninstall_app"):
    m = st.call(tool, args)
    res = m["result"]
    assert res.get("resultType") == "input_required", m
    return res["requestState"], res["inputRequests"]["spock_approval"]["params"]


def recs(s):
    return [{k: r.get(k) for k in ("seq", "arguments", "outcome", "decision", "decider", "client", "error")}
            for r in s.audit("android_uninstall_app")]


def summary(x):
    if not x or "result" not in x:
        return x
    r = x["result"]
    return {"isError": r.get("isError"), "resultType": r.get("resultType"),
            "sc": json.dumps(r.get("structuredContent"))[:200]}


def fresh(secs=30):
    s = Serve(config=VIA_CLIENT.format(secs=secs))
    return s, Stateless(s, name="agent26", version="1")


def T1():
    log("\n### T1 input_required; person attaches; client retries YES -> client_said?; person DETACHES")
    s, st = fresh()
    try:
        state, form = first_round(st)
        p = Person(s)
        a = p.ask(timeout=5)
        log("person offered:", bool(a), a and a.get("verified"))
        p.send(type="displayed", call_id=a["call_id"])
        b = bg(st.call, "android_uninstall_app", NOTES, state, YES, 60)
        said = p.until("client_said", timeout=5)
        log("client_said:", said, "retry still waiting:", b["t"].is_alive())
        time.sleep(0.8)
        p.close()
        r = wait_box(b, 40)
        log("retry result after the person left:", summary(r), "notes installed:", installed(s))
        log("audit:", json.dumps(recs(s)))
    finally:
        s.stop()


def T2():
    log("\n### T2 input_required; person attaches, looks, detaches without answering; then retry YES")
    s, st = fresh()
    try:
        state, form = first_round(st)
        p = Person(s)
        a = p.ask(timeout=5)
        p.send(type="displayed", call_id=a["call_id"])
        time.sleep(0.8)
        p.close()
        time.sleep(0.5)
        r = st.call("android_uninstall_app", NOTES, state, YES)
        log("retry:", summary(r), "notes installed:", installed(s))
        log("audit:", json.dumps(recs(s)))
    finally:
        s.stop()


def T3():
    log("\n### T3 input_required; person attaches and APPROVES (no retry yet); does it run? then retry with decline")
    s, st = fresh()
    try:
        state, form = first_round(st)
        p = Person(s)
        a = p.ask(timeout=5)
        p.approve(a["call_id"])
        d = p.until("decided", timeout=5)
        time.sleep(1)
        log("decided:", d, "notes installed right after the person's yes:", installed(s))
        r = st.call("android_uninstall_app", NOTES, state, {"spock_approval": {"action": "decline"}})
        log("retry(decline):", summary(r), "notes installed:", installed(s))
        log("audit:", json.dumps(recs(s)))
        p.close()
    finally:
        s.stop()


def T4():
    log("\n### T4 input_required; person attaches and DENIES; client retries YES")
    s, st = fresh()
    try:
        state, form = first_round(st)
        p = Person(s)
        a = p.ask(timeout=5)
        p.deny(a["call_id"])
        p.until("decided", timeout=5)
        r = st.call("android_uninstall_app", NOTES, state, YES)
        log("retry:", summary(r), "notes installed:", installed(s))
        log("audit:", json.dumps(recs(s)))
        p.close()
    finally:
        s.stop()


def T5():
    log("\n### T5 race: retry YES sent d ms after the person starts attaching")
    for d in [0, 1, 2, 4, 8, 15]:
        s, st = fresh()
        try:
            state, form = first_round(st)
            b = {}
            t = threading.Timer(d / 1000, lambda: b.update(bg(st.call, "android_uninstall_app", NOTES, state, YES, 60)))
            t.start()
            p = Person(s)
            a = p.ask(timeout=2)
            time.sleep(0.3)
            t.join()
            dec = p.seen("decided")
            said = p.seen("client_said")
            inst = installed(s)
            log(f"d={d} offered={bool(a)} said={len(said)} decided={[(x['approved'], x['by']) for x in dec]} notes_installed={inst}")
            if a and not inst:
                log("   !! offered to the person, ran without the person's answer")
            if a and b.get("t") and b["t"].is_alive():
                p.deny(a["call_id"])
            if b.get("t"):
                wait_box(b, 20)
            log("   audit:", [(x["outcome"], x["decision"], x["decider"]) for x in recs(s)])
            p.close()
        finally:
            s.stop()


def T6():
    log("\n### T6 person attached BEFORE the first round: is the client still handed an input_required form?")
    s, st = fresh()
    try:
        p = Person(s)
        b = bg(st.call, "android_uninstall_app", NOTES, None, None, 60)
        a = p.ask(timeout=5)
        time.sleep(0.5)
        log("person offered:", bool(a), "first round returned:", not b["t"].is_alive())
        p.close()
        r = wait_box(b, 40)
        log("first round after the person detached:", summary(r))
        if r and r.get("result", {}).get("resultType") == "input_required":
            r2 = st.call("android_uninstall_app", NOTES, r["result"]["requestState"], YES)
            log("retry YES:", summary(r2))
        log("notes installed:", installed(s))
        log("audit:", json.dumps(recs(s)))
    finally:
        s.stop()


if __name__ == "__main__":
    for name in (sys.argv[1:] or ["T1", "T2", "T3", "T4", "T5", "T6"]):
        globals()[name]()
