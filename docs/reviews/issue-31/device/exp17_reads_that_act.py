"""Attack 17: which tools still run on a phone another agent leased ('reads stay allowed')?
Look for ones that change the device or its state, or reach it through a resource."""
import sys, json, time
sys.path.insert(0, "/work/attacks/device")
from lib import *

lab = Lab(n=1)
try:
    P = lab.adbd[0]
    person = Person(lab.serve)
    a = Http(lab.serve, "agent-a"); b = Http(lab.serve, "agent-b")
    log("A lease:", a.call("android_lease_device", {"serial": P})[1].get("action"))
    fns = b.call("android_list_app_functions", {"serial": P})
    log("app functions:", json.dumps(fns)[:600])
    tries = [
        ("android_start_screen_recording", {"serial": P, "timeLimitSeconds": 5}),
        ("android_stop_screen_recording", {"serial": P}),
        ("android_wait_for_element", {"serial": P, "selector": {"text": "zzz"}, "timeoutMs": 500}),
        ("android_get_ui_tree", {"serial": P}),
        ("android_take_screenshot", {"serial": P}),
        ("android_pull_file", {"serial": P, "devicePath": "/sdcard/Download"}),
        ("android_get_logcat", {"serial": P, "lines": 5}),
        ("android_get_debug_context", {"serial": P}),
        ("android_accessibility_audit", {"serial": P}),
        ("android_assert_visible", {"serial": P, "selector": {"text": "zzz"}}),
    ]
    for t, args in tries:
        err, sc = b.call(t, args, timeout=60)
        log(f"{t}: {'refused/err' if err else 'RAN'} {str(sc.get('error') if err else json.dumps(sc))[:140]}")
    for uri in (f"android://device/{P}/screenshot", f"android://device/{P}/ui", f"android://device/{P}/info"):
        m = b.rpc("resources/read", {"uri": uri})
        log(f"resource {uri}: {'error' if 'error' in m else 'read'} {json.dumps(m)[:120]}")
    # host-level: restart adb server (drops every device incl. the leased one)
    box = bg(b.call, "spock_restart_adb_server", {})
    ask = person.ask(timeout=5)
    if ask:
        log("spock_restart_adb_server MODAL:", json.dumps({k: ask.get(k) for k in ("tool", "device", "reason", "arguments")})[:300])
        person.deny(ask["call_id"])
    log("restart result:", json.dumps(wait_box(box, 20))[:200])
finally:
    lab.close()
