"""A6: batch runs and who they are attributed to. B1 agent run, relay killed before the
destructive step; B2 a stateless 2026 run (no session at all); B3 HTTP session deleted mid-run;
B4 via_client: agent's run with its relay gone, another MCP client connected — who is asked?;
B5 via_client: the PERSON's run, the person detaches before its destructive step, an agent with
elicitation connected — who is asked?; B6 the person's run of an agent-saved task re-saved by the
agent mid-run."""
import json, os, signal, sys, time
from lib import *

SLOW = {"tool": "android_list_packages", "arguments": {}, "waitMs": 3000}
WIPE = {"tool": "android_uninstall_app", "arguments": NOTES}


def recs(s, tool="android_uninstall_app"):
    return [{k: r.get(k) for k in ("seq", "outcome", "decision", "decider", "client", "transport", "verified", "run", "runId")}
            for r in s.audit(tool)]


def B1():
    log("\n### B1 agent (stdio) starts an inline run, relay killed before the destructive step")
    s = Serve()
    try:
        p = Person(s)
        c = Stdio(s, name="agent", version="1")
        err, r = c.call("android_batch_run_inline", {"steps": [SLOW, WIPE]})
        log("run:", err, json.dumps(r)[:200])
        c.proc.kill(); c.proc.wait()
        a = p.ask(timeout=15)
        log("asked verified:", a and json.dumps(a["verified"]), "client:", a and a["client"], "transport:", a and a["transport"])
        if a:
            p.deny(a["call_id"])
        time.sleep(1)
        log("audit:", json.dumps(recs(s)))
        p.close()
    finally:
        s.stop()


def B2():
    log("\n### B2 stateless 2026 agent starts an inline run (no MCP session at all)")
    s = Serve()
    try:
        p = Person(s)
        st = Stateless(s, name="agent26", caps={})
        m = st.call("android_batch_run_inline", {"steps": [SLOW, WIPE]})
        log("run:", json.dumps(m)[:200])
        a = p.ask(timeout=15)
        log("asked verified:", a and json.dumps(a["verified"]), "client:", a and a["client"])
        if a:
            p.deny(a["call_id"])
        # and a direct stateless destructive call
        b = bg(st.call, "android_uninstall_app", NOTES)
        a = p.ask(timeout=15)
        log("direct stateless call verified:", a and json.dumps(a["verified"]))
        if a:
            p.deny(a["call_id"])
        wait_box(b)
        time.sleep(1)
        log("audit:", json.dumps(recs(s)))
        p.close()
    finally:
        s.stop()


def B3():
    log("\n### B3 HTTP 2025 session starts a run, then DELETEs its session")
    s = Serve()
    try:
        p = Person(s)
        h = Http(s, name="agent-http")
        m = h.call("android_batch_run_inline", {"steps": [SLOW, WIPE]})
        log("run:", json.dumps(m)[:200])
        log("delete:", httpx.delete(s.url, headers=h.h, timeout=10).status_code)
        a = p.ask(timeout=15)
        log("asked verified:", a and json.dumps(a["verified"]), "client:", a and a["client"])
        if a:
            p.deny(a["call_id"])
        time.sleep(1)
        log("audit:", json.dumps(recs(s)))
        p.close()
    finally:
        s.stop()


def B4():
    log("\n### B4 via_client, nobody attached: agent A starts a run and its relay dies; agent B (elicitation) connected")
    s = Serve(config=VIA_CLIENT.format(secs=10))
    try:
        asked_b = []
        B = Stdio(s, name="agent-B", version="1", on_elicit=lambda prm: (asked_b.append(prm), {"action": "accept", "content": {"approve": True}})[1])
        asked_a = []
        A = Stdio(s, name="agent-A", version="1", on_elicit=lambda prm: (asked_a.append(prm), {"action": "accept", "content": {"approve": True}})[1])
        err, r = A.call("android_batch_run_inline", {"steps": [SLOW, WIPE]})
        log("run:", err, json.dumps(r)[:150])
        A.proc.kill(); A.proc.wait()
        time.sleep(6)
        log("B asked:", len(asked_b), [x.get("message", "")[:200] for x in asked_b], "A asked:", len(asked_a))
        log("notes installed:", installed(s))
        log("audit:", json.dumps(recs(s)))
        B.close()
    finally:
        s.stop()


def B5():
    log("\n### B5 via_client: the PERSON runs a task; detaches before the destructive step; agent with elicitation connected")
    s = Serve(config=VIA_CLIENT.format(secs=10))
    try:
        asked = []
        A = Stdio(s, name="agent", version="1", on_elicit=lambda prm: (asked.append(prm), {"action": "accept", "content": {"approve": True}})[1])
        err, r = A.call("android_batch_save", {"id": "t", "name": "T", "steps": [SLOW, WIPE]})
        log("save:", err, json.dumps(r)[:120])
        p = Person(s)
        p.send(type="batch", cmd={"cmd": "run", "task_id": "t"})
        log("reply:", p.until("batch_reply"))
        time.sleep(0.5)
        p.close()
        time.sleep(6)
        log("agent asked:", len(asked), [x.get("message", "")[:300] for x in asked])
        log("notes installed:", installed(s))
        log("audit:", json.dumps(recs(s)))
        A.close()
    finally:
        s.stop()


def B6():
    log("\n### B6 the person runs an agent-saved task; the agent re-saves it mid-run")
    s = Serve()
    try:
        A = Stdio(s, name="agent", version="1")
        A.call("android_batch_save", {"id": "t", "name": "T", "steps": [SLOW, {"tool": "android_uninstall_app", "arguments": {"packageName": "com.example.shop"}}]})
        p = Person(s)
        p.send(type="batch", cmd={"cmd": "run", "task_id": "t"})
        log("reply:", p.until("batch_reply"))
        time.sleep(0.5)
        b = bg(A.call, "android_batch_save", {"id": "t", "name": "T", "steps": [SLOW, WIPE]})
        got = []
        for _ in range(3):
            a = p.ask(timeout=8)
            if not a:
                break
            got.append(a)
            log("asked:", a["tool"], a["arguments"], json.dumps(a["verified"]), a.get("client"))
            if a["tool"] == "android_batch_save":
                p.deny(a["call_id"])
            else:
                p.deny(a["call_id"])
        log("save result:", wait_box(b, 10))
        p.close(); A.close()
    finally:
        s.stop()


for name in (sys.argv[1:] or ["B1", "B2", "B3", "B4", "B5", "B6"]):
    globals()[name]()
