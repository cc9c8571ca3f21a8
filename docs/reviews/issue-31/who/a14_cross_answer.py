"""A14: [confirm] via_client = true, nobody attached. Victim client Y (HTTP 2025 session, and
separately a stdio session) is sent an elicitation/create for its destructive call and does not
answer. Attacker client X (another HTTP session; another stdio connection; no session at all)
posts a JSON-RPC *response* carrying that request's id with an approval. Does X's answer
approve Y's call (and whom does the record name)?"""
import json, threading, time
from lib import *


def victim_http(s, box):
    h = Http(s, name="victim-http", caps={"elicitation": {"form": {}}})
    box["h"] = h
    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "android_uninstall_app", "arguments": NOTES}}
    with httpx.stream("POST", s.url, headers=h.h, json=body, timeout=60) as r:
        for line in r.iter_lines():
            if line.startswith("data:"):
                try:
                    m = json.loads(line[5:])
                except Exception:
                    continue
                box.setdefault("msgs", []).append(m)
                if m.get("method") == "elicitation/create":
                    box["elicit"] = m
                if "result" in m and m.get("id") == 9:
                    box["result"] = m
                    return


def run(label, attacker_send):
    s = Serve(config=VIA_CLIENT.format(secs=8))
    try:
        box = {}
        t = threading.Thread(target=victim_http, args=(s, box), daemon=True)
        t.start()
        d = time.monotonic() + 10
        while "elicit" not in box and time.monotonic() < d:
            time.sleep(0.05)
        if "elicit" not in box:
            log(f"== {label}: victim never asked: {box}")
            return
        eid = box["elicit"]["id"]
        resp = {"jsonrpc": "2.0", "id": eid, "result": {"action": "accept", "content": {"approve": True}}}
        out = attacker_send(s, resp, box)
        t.join(12)
        res = box.get("result", {}).get("result", {})
        log(f"== {label}: elicitation id={eid!r} attacker post -> {out}; victim call: "
            f"{json.dumps(res.get('structuredContent'))[:160]}; notes installed={installed(s)}")
        for r in s.audit("android_uninstall_app"):
            log("   audit:", r["outcome"], r.get("decision"), r.get("decider"))
    finally:
        s.stop()


def other_http_session(s, resp, box):
    x = Http(s, name="attacker-http")
    r = httpx.post(s.url, headers=x.h, json=resp, timeout=10)
    return r.status_code


def no_session(s, resp, box):
    h = {"Authorization": f"Bearer {s.token}", "Accept": "application/json, text/event-stream", "Content-Type": "application/json",
         "MCP-Protocol-Version": "2025-06-18"}
    r = httpx.post(s.url, headers=h, json=resp, timeout=10)
    return r.status_code


def stdio_other(s, resp, box):
    x = Stdio(s, name="attacker-stdio")
    x._write(resp)
    time.sleep(0.5)
    x.close()
    return "sent on stdio"


def same_session_control(s, resp, box):
    r = httpx.post(s.url, headers=box["h"].h, json=resp, timeout=10)
    return r.status_code


run("control: the victim's own session answers", same_session_control)
run("another HTTP session answers", other_http_session)
run("a POST with no session answers", no_session)
run("a stdio connection answers", stdio_other)
