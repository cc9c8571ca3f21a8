"""Attack 18: android_call_app_function (an app's own function: createNote / deleteNote) on a
phone another agent leased."""
import sys, json
sys.path.insert(0, "/work/attacks/device")
from lib import *
lab = Lab(n=1)
try:
    P = lab.adbd[0]
    a = Http(lab.serve, "agent-a"); b = Http(lab.serve, "agent-b")
    log("A lease:", a.call("android_lease_device", {"serial": P})[1].get("action"))
    for fid, args in (("createNote", {"title": "x", "body": "y"}), ("searchNotes", {"query": "a"}), ("deleteNote", {"title": "x"})):
        err, sc = b.call("android_call_app_function", {"serial": P, "packageName": "com.example.notes", "functionId": fid, "arguments": args})
        log(f"B {fid}: {'refused/err' if err else 'RAN'} {str(sc.get('error') if err else json.dumps(sc))[:160]}")
finally:
    lab.close()
