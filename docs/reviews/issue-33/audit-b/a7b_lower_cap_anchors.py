"""Goal 3 diagnosis: the anchors a run sends when it starts with a lowered cap (1024 -> 1 MiB)."""
import json, time
from lab import *
lab = Lab("lowercap2")
try:
    h = lab.new_home("lc", lab.conf(""))
    s = lab.serve(h); c = lab.client(h)
    for i in range(120):
        if i % 3 == 0:
            c.approve = False; c.call("android_uninstall_app", {"packageName": "com.example.bank"})
        c.call("android_get_battery_info", {"junk": "not base64! " * 1250})
    c.close(); lab.stop(s)
    n = len(lab.anchors(h))
    lab.write_conf(h, lab.conf("max_total_mb = 1"))
    s = lab.serve(h); time.sleep(1); c = lab.client(h)
    for i in range(3): c.call("android_get_battery_info", {"junk": "not base64! " * 1250})
    c.close(); lab.stop(s); lab.wait_anchor(h, "stop", 2)
    print("anchors of run 2:"); [print("  ", l.split("] ")[1][:300]) for l in lab.anchors(h)[n:]]
    d = lab.audit_dir(h); print(sorted((f.name, f.stat().st_size) for f in d.iterdir()))
    show("verify", lab.verify(h))
finally:
    lab.close()
