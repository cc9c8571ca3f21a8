"""A13: the person records a batch task on the Batch screen (start_recording/stop_recording over
the attach channel). Meanwhile an agent makes calls. Do the agent's calls end up in the person's
recorded task — and when the person later runs it, are those steps asked as the person's own
acts (verified.person)?"""
import json, time
from lib import *

s = Serve()
try:
    p = Person(s)
    p.send(type="batch", cmd={"cmd": "start_recording", "name": "my-recording"})
    log("start:", p.until("batch_reply"))
    c = Stdio(s, name="agent", version="1")
    log("agent safe call:", c.call("android_list_packages", {"filter": "com.example"})[0])
    b = bg(c.call, "android_uninstall_app", {"packageName": "com.example.shop"}, 30)
    a = p.ask(timeout=5)
    if a:
        log("agent destructive call asked; person approves it (a legit approval)")
        p.approve(a["call_id"])
    log("agent destructive call:", wait_box(b))
    p.send(type="batch", cmd={"cmd": "stop_recording"})
    rep = p.until("batch_reply")
    log("stop:", json.dumps(rep)[:400])
    data = p.until("batch", timeout=5)
    tasks = [x for x in p.all if x["type"] == "batch"]
    last = tasks[-1]["data"]["tasks"] if tasks else []
    for tk in last:
        log("task:", json.dumps(tk)[:500])
    c.close()
    p.close()
finally:
    s.stop()
