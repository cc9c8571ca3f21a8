"""Attack 15: a serial-less destructive call (plain and as a batch step) asked for the
selected phone P; while the modal is up the same client selects Q (or P leaves and Q is
the only phone). The person approves what it saw (P). Where does it run?"""
import sys, json, time
sys.path.insert(0, "/work/attacks/device")
from lib import *

def has(lab, s, pkg):
    return pkg in lab.adb.adb("-s", s, "shell", "pm", "list", "packages")

lab = Lab(n=2)
try:
    P, Q = lab.adbd
    person = Person(lab.serve)
    b = Http(lab.serve, "agent-b")
    # plain call
    b.call("android_select_device", {"serial": P})
    box = bg(b.call, "android_uninstall_app", {"packageName": "com.example.notes"})
    ask = person.ask(tool="android_uninstall_app"); log("[plain] MODAL device:", ask["device"])
    b2 = Http(lab.serve, "agent-b")  # same name other session, irrelevant; reselect in b itself:
    log("[plain] B selects Q meanwhile:", b.call("android_select_device", {"serial": Q})[1])
    person.approve(ask["call_id"])
    log("[plain] result:", json.dumps(wait_box(box))[:200])
    log("[plain] notes on P:", has(lab, P, "com.example.notes"), "on Q:", has(lab, Q, "com.example.notes"))
    # batch step
    b.call("android_select_device", {"serial": P})
    err, run = b.call("android_batch_run_inline", {"steps": [{"tool": "android_uninstall_app", "arguments": {"packageName": "com.example.shop"}}]})
    ask = person.ask(tool="android_uninstall_app"); log("[batch] MODAL device:", ask["device"])
    log("[batch] B selects Q meanwhile:", b.call("android_select_device", {"serial": Q})[1])
    person.approve(ask["call_id"]); time.sleep(2)
    log("[batch] run:", json.dumps(b.call("android_batch_history_get", {"runId": run["runId"]})[1].get("steps"))[:300])
    log("[batch] shop on P:", has(lab, P, "com.example.shop"), "on Q:", has(lab, Q, "com.example.shop"))
    # batch: step 2 has no serial; B re-selects between steps (no modal between) - does the run follow the session's selection?
    b.call("android_select_device", {"serial": P})
    err, run = b.call("android_batch_run_inline", {"steps": [{"tool": "android_tap", "arguments": {"x": 1, "y": 1}, "waitMs": 2000},
                                                              {"tool": "android_tap", "arguments": {"x": 2, "y": 2}}]})
    time.sleep(0.5); b.call("android_select_device", {"serial": Q}); time.sleep(2.5)
    st = b.call("android_batch_history_get", {"runId": run["runId"]})[1].get("steps")
    log("[batch tap] steps ran on:", [s.get("result", {}).get("serial") for s in st])
finally:
    lab.close()
