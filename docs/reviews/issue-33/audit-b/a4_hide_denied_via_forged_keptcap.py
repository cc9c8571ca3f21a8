"""Goal 1 attempt: erase anchored DENIED records by hand and make verify excuse them.
Honest trail, max_total_mb = 1 (honest rotations, cap deletions, kept file). As the user:
  1. delete the oldest remaining rotated file by hand (it holds anchored denied uninstalls);
  2. rewrite audit.kept.jsonl with byte-exact copies of denied records still in the live trail
     (each agrees with its own anchor), sized as a kept-cap trim would leave the file;
  3. send, over its own TCP connection to the collector, a cap anchor and a kept-cap anchor with
     the REAL run id (from audit.state.json), the real caps, first= the new oldest seqs.
Verdict BROKEN if verify --anchors as root exits 0."""
import json, os, re, sys, time, glob
from lab import *
lab = Lab("hide")
KCAP = 262144

def build(name, n=200):
    h = lab.new_home(name, lab.conf("max_total_mb = 1"))
    s = lab.serve(h); c = lab.client(h); c.approve = False
    for i in range(n):
        if i % 2 == 0:
            c.call("android_uninstall_app", {"packageName": "com.example.notes" + "y" * 12000})
        else:
            c.call("android_get_battery_info", {"junk": "x" * 15000})
    c.close(); lab.stop(s); lab.wait_anchor(h, "stop")
    return h

def files_info(d):
    out = []
    for f in glob.glob(str(d / "audit*.jsonl")):
        if f.endswith("kept.jsonl"): continue
        ls = open(f).read().splitlines()
        out.append((json.loads(ls[0])["seq"], json.loads(ls[-1])["seq"], f, os.path.getsize(f)))
    return sorted(out)

def tamper(h, nfiles, kept_mode):
    d = lab.audit_dir(h)
    def go():
        fi = files_info(d)
        gone = fi[:nfiles]
        for _, _, p, _ in gone:
            os.unlink(p)
        hi = gone[-1][1]
        live = [l for _, _, p, _ in fi[nfiles:] for l in open(p).read().splitlines()]
        destr = [l for l in live if json.loads(l)["outcome"] in ("denied", "refused") or json.loads(l)["level"] == "destructive"]
        kept = []
        if kept_mode == "copies":
            size = 0
            for l in destr:            # oldest first, as many as fit
                if size + len(l) + 1 > KCAP: break
                kept.append(l); size += len(l) + 1
        (d / "audit.kept.jsonl").write_text("".join(l + "\n" for l in kept))
        st = json.loads((d / "audit.state.json").read_text())
        return dict(lo=gone[0][0], hi=hi, first=hi + 1, run=st["run"], seq=st["seq"], hash=st["hash"],
                    left=sum(x[3] for x in fi[nfiles:]), keptfirst=json.loads(kept[0])["seq"] if kept else hi + 1,
                    keptbytes=sum(len(l) + 1 for l in kept), gone_denied=[json.loads(l)["seq"] for _, _, p, _ in gone
                        for l in open(p).read().splitlines()] if False else None)
    return lab.as_user(go)

def collapse(out):
    def rep(m):
        seqs = re.findall(r"seq (\d+) was", m.group(0))
        return f"  [{len(seqs)} lines 'seq N was anchored as a destructive... gone': N = {','.join(seqs)}]\n"
    return re.sub(r"(  seq \d+ was anchored as a destructive[^\n]*\n?)+", rep, out)

results = {}
try:
    for nfiles in (1, 2):
        for kept_mode in ("copies",):
            name = f"{nfiles} file(s) deleted by hand, kept={kept_mode}"
            h = build(f"n{nfiles}{kept_mode}")
            honest = [l.split("] ")[1] for l in lab.anchors(h) if re.search(r'reason="(cap|kept-cap)"', l)]
            i = tamper(h, nfiles, kept_mode)
            t = lab.trail_id(h)
            for m in (anchor_msg(t, i["run"], i["seq"], i["hash"], "cap", cap=1048576, first=i["first"]),
                      anchor_msg(t, i["run"], i["seq"], i["hash"], "kept-cap", cap=KCAP, first=i["keptfirst"])):
                lab.as_user(send_frame, lab.rsyslog.port, m)
            time.sleep(1)
            print(f"\n=== {name}\n    honest cap/kept-cap anchors: {[x.split(' time=')[1] for x in honest]}")
            print(f"    deleted seq {i['lo']}..{i['hi']} by hand; trail left {i['left']} B; kept rewritten: {i['keptbytes']} B from seq {i['keptfirst']}")
            r = lab.verify(h)
            print(f"--- verify --anchors (root): exit {r.returncode}\n{collapse(r.stdout + r.stderr)}")
            results[name] = "BROKEN (exit 0)" if r.returncode == 0 else f"HOLDS (exit {r.returncode})"
    print("\nSUMMARY"); [print(f"  {k}: {v}") for k, v in results.items()]
finally:
    lab.close()
