"""Attack 5: B starts a batch (inline steps, keepScreenOn) before A leases the phone; the
steps after the lease: do they run on A's leased phone? Also the run's closing
android_keep_screen_on(off) call."""
import sys, json, time
sys.path.insert(0, "/work/attacks/device")
from lib import *

lab = Lab(n=1)
try:
    P = lab.adbd[0]
    person = Person(lab.serve)
    a = Http(lab.serve, "agent-a"); b = Http(lab.serve, "agent-b")
    steps = [
        {"tool": "android_tap", "arguments": {"x": 11, "y": 11, "serial": P}, "waitMs": 3000},
        {"tool": "android_tap", "arguments": {"x": 22, "y": 22, "serial": P}, "stopOnError": False},
        {"tool": "android_tap", "arguments": {"x": 33, "y": 33}, "stopOnError": False},
        {"tool": "android_press_key", "arguments": {"key": "HOME"}, "stopOnError": False},
        {"tool": "android_clear_app_data", "arguments": {"packageName": "com.example.notes"}, "stopOnError": False},
    ]
    err, run = b.call("android_batch_run_inline", {"steps": steps, "keepScreenOn": True, "name": "b-run"})
    log("B run:", err, run)
    time.sleep(1.0)
    err, got = a.call("android_lease_device", {"serial": P}); log("A lease at t=1s:", got.get("action"))
    ask = person.ask(timeout=8, tool="android_clear_app_data")
    if ask:
        log("MODAL for batch step:", ask.get("client"), ask.get("device"))
        person.approve(ask["call_id"])
    time.sleep(3)
    err, h = b.call("android_batch_history_get", {"runId": run["runId"]})
    log("run:", json.dumps(h)[:1500])
    for r in lab.serve.audit():
        if r["tool"] in ("android_tap", "android_press_key", "android_clear_app_data", "android_keep_screen_on", "android_lease_device"):
            log("  audit", r["seq"], r["time"][11:23], r["client"], r["tool"], r.get("arguments", {}).get("x") or r.get("arguments", {}).get("event") or "", r["outcome"], str(r.get("error") or "")[:90])
finally:
    lab.close()
