"""Honest trail, max_total_mb = 1: floods of 15 KiB records (rotations + cap deletions), denied and
approved destructive calls among them, kept-file trim; stop/restart, kill -9 mid-flood, restart.
Verify as root after each stage; any exit != 0 is a false accusation (goal 3)."""
import sys, json, signal, time, os
from lab import *
BIG = "x" * 15000
lab = Lab("honestcap")
bad = 0
def flood(c, n, denied_every=5, approved_every=7):
    for i in range(n):
        if i % denied_every == 0:
            c.approve = False
            c.call("android_uninstall_app", {"packageName": "com.example.notes" + "y" * 12000})
        elif i % approved_every == 0:
            c.approve = True
            c.call("android_clear_app_data", {"packageName": "com.example.notes"})
        else:
            c.call("android_get_battery_info", {"junk": BIG})
def check(stage):
    global bad
    r = lab.verify(h)
    show(stage, r)
    d = lab.audit_dir(h)
    print("   files:", sorted((f.name, f.stat().st_size) for f in d.iterdir()))
    if r.returncode != 0:
        bad += 1
try:
    h = lab.new_home("cap", lab.conf("max_total_mb = 1"))
    s = lab.serve(h); c = lab.client(h)
    flood(c, 150)
    c.close(); lab.stop(s); lab.wait_anchor(h, "stop")
    reasons = {}
    for l in lab.anchors(h):
        r = l.split('reason="')[1].split('"')[0]; reasons[r] = reasons.get(r, 0) + 1
    print("anchor reasons:", reasons)
    for l in lab.anchors(h):
        if 'reason="record"' not in l: print("  ", l.split("] ")[1][:260])
    check("after run 1 (150 calls, stop)")
    s = lab.serve(h); c = lab.client(h)
    flood(c, 100)
    c.close(); lab.stop(s); lab.wait_anchor(h, "stop", 2)
    check("after run 2")
    # kill -9 mid flood
    for k in range(3):
        s = lab.serve(h); c = lab.client(h)
        flood(c, 40 + 13 * k)
        s.kill(); s.wait(); c.close()
        check(f"after kill -9 #{k}")
    s = lab.serve(h); c = lab.client(h); flood(c, 30); c.close(); lab.stop(s)
    time.sleep(1)
    check("after final clean run")
    print("FALSE ACCUSATIONS:", bad)
finally:
    lab.close()
