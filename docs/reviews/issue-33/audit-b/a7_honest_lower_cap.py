"""Goal 3: an honest person lowers the cap between runs (1024 -> 1 MiB), raises it again, lowers
it to 1 with kill -9 mid-flood (rotations + cap deletions + kept trims under way). Verify after each
stage; any exit != 0 is a false accusation."""
import json, time, signal, threading
from lab import *
lab = Lab("lowercap")
bad = []
def flood(c, n):
    for i in range(n):
        if i % 3 == 0:
            c.approve = False; c.call("android_uninstall_app", {"packageName": "com.example.bank"})
        if i % 4 == 0:
            c.call("android_uninstall_app", {"packageName": "pad! " * 2400})
        c.call("android_get_battery_info", {"junk": "not base64! " * 1250})
def check(stage):
    r = lab.verify(h); show(stage, r)
    if r.returncode != 0: bad.append(stage)
try:
    h = lab.new_home("lc", lab.conf(""))
    s = lab.serve(h); c = lab.client(h); flood(c, 120); c.close(); lab.stop(s)
    check("run 1, cap 1024 MiB, ~2.3 MB written")
    lab.write_conf(h, lab.conf("max_total_mb = 1"))
    s = lab.serve(h); time.sleep(1); c = lab.client(h); flood(c, 5); c.close(); lab.stop(s)
    check("run 2, cap lowered to 1 MiB at start")
    lab.write_conf(h, lab.conf("max_total_mb = 1024"))
    s = lab.serve(h); c = lab.client(h); flood(c, 30); c.close(); lab.stop(s)
    check("run 3, cap raised back to 1024")
    lab.write_conf(h, lab.conf("max_total_mb = 1"))
    for k in range(4):
        s = lab.serve(h); c = lab.client(h)
        t = threading.Timer(0.3 + 0.25 * k, lambda: s.send_signal(signal.SIGKILL)); t.start()
        try: flood(c, 400)
        except Exception as e: pass
        t.join(); s.wait(); c.close()
        check(f"kill -9 #{k} mid-flood at cap 1 MiB")
    s = lab.serve(h); time.sleep(1.5); lab.stop(s)
    check("clean restart after the kills")
    print("FALSE ACCUSATIONS:", bad or "none")
finally:
    lab.close()
