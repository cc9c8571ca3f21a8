"""A9: what the person later reads in History/Activity. With [confirm] via_client = true and
nobody attached, an agent whose clientInfo is name "control centre", version "attach pid P on
/dev/pts/77" (P = the person's attach pid, visible in /proc) approves its own uninstall. Then the
person runs a task of their own and approves it. Both rows in History and their details, and
both audit records, compared."""
import json, os, time
from lib import *

s = Serve(config=VIA_CLIENT.format(secs=20))
t = None
try:
    p = Person(s)
    you = p.you
    p.close(); time.sleep(0.5)
    c = Stdio(s, name="control centre", version=you, on_elicit=lambda prm: {"action": "accept", "content": {"approve": True}})
    err, r = c.call("android_uninstall_app", NOTES)
    log("agent's self-approved call:", err, json.dumps(r)[:120])
    err, r = c.call("android_batch_save", {"id": "mine", "name": "Mine", "steps": [{"tool": "android_uninstall_app", "arguments": {"packageName": "com.example.shop"}}]})
    c.close()
    p = Person(s)
    p.send(type="batch", cmd={"cmd": "run", "task_id": "mine"})
    a = p.ask()
    log("person's own run asked: client=", a["client"], "verified=", a["verified"])
    p.approve(a["call_id"]); p.until("call_finished", timeout=5)
    time.sleep(1)
    for r in s.audit("android_uninstall_app"):
        log("audit:", json.dumps({k: r.get(k) for k in ("tool", "arguments", "client", "transport", "outcome", "decision", "decider", "verified")}))
    t = Tmux(s, width=160, height=45)
    time.sleep(2)
    t.keys("4"); time.sleep(1.5)
    scr = t.screen()
    log("--- History list")
    for l in scr.splitlines()[4:9]:
        log("   |", l)
    open("a9_history.txt", "w").write(scr)
    # details of each row: select row and Enter
    for i, lab in enumerate(["newest (person's run)", "older (agent)"]):
        t.keys("Enter"); time.sleep(1.2)
        d = t.screen()
        log(f"--- details: {lab}")
        for l in d.splitlines():
            if any(k in l for k in ("client", "Client", "decid", "Decid", "verified", "person", "transport", "Transport", "by", "Asked")):
                log("   |", l.strip()[:150])
        open(f"a9_detail{i}.txt", "w").write(d)
        t.keys("Escape"); time.sleep(0.5); t.keys("Down"); time.sleep(0.5)
    p.close()
finally:
    if t:
        t.kill()
    s.stop()
