import sys, json
from lab import *
lab = Lab("smoke")
try:
    h = lab.new_home("smoke", lab.conf())
    s = lab.serve(h)
    c = lab.client(h)
    print(c.call("android_get_battery_info"))
    print(c.call("android_clear_app_data", {"packageName": "com.example.notes"}))
    print(c.call("android_get_battery_info", {"junk": "x"*100}))
    c.close(); lab.stop(s)
    lab.wait_anchor(h, "stop")
    for l in lab.anchors(h): print("A:", l)
    d = lab.audit_dir(h)
    for f in sorted(d.iterdir()): print(f.name, f.stat().st_size)
    print(open(d/"audit.jsonl").read()[:3000])
    print(open(d/"audit.state.json").read())
    show("verify", lab.verify(h))
    show("plain", lab.verify(h, anchors=False))
finally:
    lab.close()
