"""Explore: honest anchors of kinds cap / kept-cap with max_total_mb = 1 (for forging formats)."""
import json, time
from lab import *
lab = Lab("explore")
try:
    h = lab.new_home("x", lab.conf("max_total_mb = 1"))
    s = lab.serve(h); c = lab.client(h)
    c.approve = False
    for i in range(260):
        if i % 2 == 0:
            c.call("android_uninstall_app", {"packageName": "com.example.notes" + "y" * 12000})
        else:
            c.call("android_get_battery_info", {"junk": "x" * 15000})
    c.close(); lab.stop(s); lab.wait_anchor(h, "stop")
    for l in lab.anchors(h):
        if 'reason="record"' not in l: print("  ", l.split("] ")[1][:330])
    d = lab.audit_dir(h)
    print(sorted((f.name, f.stat().st_size) for f in d.iterdir()))
    kept = (d / "audit.kept.jsonl").read_text().splitlines()
    print("kept seqs", [json.loads(l)["seq"] for l in kept][:5], "...", len(kept))
    print(open(d / "audit.state.json").read())
    show("verify", lab.verify(h))
finally:
    lab.close()
