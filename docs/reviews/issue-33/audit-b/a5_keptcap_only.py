"""Goal 1: the kept file alone. Honest trail, max_total_mb = 1: the cap deleted files whose denied
records now live only in audit.kept.jsonl. As the user, drop the OLDEST kept denied records and
send one forged kept-cap anchor (real run id, real kept cap 262144, first = new oldest kept seq).
(a) kept file: just the newer honest kept lines; (b) padded with byte-exact copies of denied
records still in the live trail; (c) emptied. BROKEN if verify --anchors (root) exits 0."""
import json, os, re, time, glob
from lab import *
lab = Lab("keptonly")
KCAP = 262144

def build(name, n=170):
    h = lab.new_home(name, lab.conf("max_total_mb = 1"))
    s = lab.serve(h); c = lab.client(h); c.approve = False
    for i in range(n):
        if i % 2 == 0:
            c.call("android_uninstall_app", {"packageName": "com.example.notes" + "y" * 12000})
        else:
            c.call("android_get_battery_info", {"junk": "x" * 15000})
    c.close(); lab.stop(s); lab.wait_anchor(h, "stop")
    return h

def tamper(h, mode, drop):
    d = lab.audit_dir(h)
    def go():
        kept = (d / "audit.kept.jsonl").read_text().splitlines()
        before = [json.loads(l)["seq"] for l in kept]
        kept = kept[drop:]
        if mode == "pad":
            live = sorted((l for f in glob.glob(str(d / "audit*.jsonl")) if not f.endswith("kept.jsonl")
                           for l in open(f).read().splitlines()), key=lambda l: json.loads(l)["seq"])
            size = sum(len(l) + 1 for l in kept)
            for l in live:
                r = json.loads(l)
                if r.get("outcome") not in ("denied", "refused") or r["seq"] <= json.loads(kept[-1])["seq"]: continue
                if size + len(l) + 1 > KCAP: break
                kept.append(l); size += len(l) + 1
        if mode == "empty":
            kept = []
        (d / "audit.kept.jsonl").write_text("".join(l + "\n" for l in kept))
        st = json.loads((d / "audit.state.json").read_text())
        return dict(before=before, after=[json.loads(l)["seq"] for l in kept], run=st["run"], seq=st["seq"],
                    hash=st["hash"], bytes=sum(len(l) + 1 for l in kept))
    return lab.as_user(go)

import sys
MODES = sys.argv[1:] or ["plain", "pad", "empty"]
results = {}
try:
    for mode in MODES:
        h = build(mode)
        i = tamper(h, mode, drop=4)
        first = i["after"][0] if i["after"] else i["before"][-1] + 1
        t = lab.trail_id(h)
        lab.as_user(send_frame, lab.rsyslog.port,
                    anchor_msg(t, i["run"], i["seq"], i["hash"], "kept-cap", cap=KCAP, first=first))
        time.sleep(1)
        print(f"\n=== mode={mode}: kept seqs before {i['before']}\n    after {i['after']} ({i['bytes']} B); forged kept-cap first={first}")
        r = lab.verify(h)
        show("verify --anchors (root)", r)
        results[mode] = "BROKEN (exit 0)" if r.returncode == 0 else f"HOLDS (exit {r.returncode})"
    print("\nSUMMARY"); [print(f"  {k}: {v}") for k, v in results.items()]
finally:
    lab.close()
