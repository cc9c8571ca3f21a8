"""Forged anchors (same user, own TCP connection to the collector) trying to make verify excuse a
deletion by hand as a cap deletion. Honest trail with max_total_mb = 1 and a real cap deletion;
then the user deletes the OLDEST REMAINING rotated file (holding denied uninstalls) by hand, and
the kept file's lines below it, and sends forged cap / kept-cap (/ start) anchors.
Goal 1 if verify --anchors as root exits 0."""
import json, os, sys, time, glob
from lab import *
lab = Lab("forgecap")

def build(name):
    h = lab.new_home(name, lab.conf("max_total_mb = 1"))
    s = lab.serve(h); c = lab.client(h); c.approve = False
    for i in range(200):
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

def tamper(h):
    global MODE
    d = lab.audit_dir(h)
    def go():
        fi = files_info(d)
        lo, hi, path, size = fi[0]          # oldest remaining rotated file
        os.unlink(path)
        kept = d / "audit.kept.jsonl"
        kl = kept.read_text().splitlines() if kept.exists() else []
        if MODE == "empty-kept":
            kept.write_text(""); kl = []
        st = json.loads((d / "audit.state.json").read_text())
        left = sum(x[3] for x in fi[1:])
        return dict(lo=lo, hi=hi, first=hi + 1, run=st["run"], seq=st["seq"], hash=st["hash"], left=left,
                    keptleft=sum(len(l) + 1 for l in kl), keptfirst=json.loads(kl[0])["seq"] if kl else hi + 1)
    return lab.as_user(go)

MODE = "keep"
VARIANTS = {
  "A: real run, cap anchor only (cap=1MiB, first=new oldest)": lambda i, t: [
      anchor_msg(t, i["run"], i["seq"], i["hash"], "cap", cap=1048576, first=i["first"])],
  "B: real run, cap + kept-cap first=new oldest, kept file emptied": lambda i, t: [
      anchor_msg(t, i["run"], i["seq"], i["hash"], "cap", cap=1048576, first=i["first"]),
      anchor_msg(t, i["run"], i["seq"], i["hash"], "kept-cap", cap=262144, first=i["first"])],
  "C: real run, cap + kept-cap first=new oldest, kept file left": lambda i, t: [
      anchor_msg(t, i["run"], i["seq"], i["hash"], "cap", cap=1048576, first=i["first"]),
      anchor_msg(t, i["run"], i["seq"], i["hash"], "kept-cap", cap=262144, first=i["first"])],
}
OLD = {
  "real run, cap=1MiB, first=new oldest, kept-cap": lambda i, t: [
      anchor_msg(t, i["run"], i["seq"], i["hash"], "cap", cap=1048576, first=i["first"]),
      anchor_msg(t, i["run"], i["seq"], i["hash"], "kept-cap", cap=262144, first=i["keptfirst"])],
  "real run, second start anchor with cap=left+1, cap + kept-cap at that cap": lambda i, t: [
      anchor_msg(t, i["run"], 0, GENESIS, "start", cap=i["left"] + 1),
      anchor_msg(t, i["run"], i["seq"], i["hash"], "cap", cap=i["left"] + 1, first=i["first"]),
      anchor_msg(t, i["run"], i["seq"], i["hash"], "kept-cap", cap=(i["left"] + 1) // 4, first=i["keptfirst"])],
  "fake run: start(cap=left+1, seq=head) then cap + kept-cap": lambda i, t: [
      anchor_msg(t, "f" * 32, i["seq"], i["hash"], "start", cap=i["left"] + 1),
      anchor_msg(t, "f" * 32, i["seq"], i["hash"], "cap", cap=i["left"] + 1, first=i["first"]),
      anchor_msg(t, "f" * 32, i["seq"], i["hash"], "kept-cap", cap=(i["left"] + 1) // 4, first=i["keptfirst"])],
  "fake run, start at seq 0 (looks like the first run)": lambda i, t: [
      anchor_msg(t, "e" * 32, 0, GENESIS, "start", cap=i["left"] + 1),
      anchor_msg(t, "e" * 32, i["seq"], i["hash"], "cap", cap=i["left"] + 1, first=i["first"]),
      anchor_msg(t, "e" * 32, i["seq"], i["hash"], "kept-cap", cap=max(1, i["keptleft"]), first=i["keptfirst"])],
}
def collapse(out):
    import re
    def rep(m):
        seqs = re.findall(r"seq (\d+) was", m.group(0))
        return f"  [{len(seqs)} lines 'seq N was anchored as a destructive, denied or refused record and is gone...': N = {','.join(seqs)}]\n"
    return re.sub(r"(  seq \d+ was anchored as a destructive[^\n]*\n?)+", rep, out)
results = {}
try:
    for name, mk in VARIANTS.items():
        h = build(name.split(",")[0][:10].replace(" ", "-"))
        MODE = "empty-kept" if name.startswith("B") else "keep"
        info = tamper(h)
        trail = lab.trail_id(h)
        for m in mk(info, trail):
            lab.as_user(send_frame, lab.rsyslog.port, m)
        time.sleep(1.0)
        print(f"\n=== {name}\n    deleted seq {info['lo']}..{info['hi']} by hand; left {info['left']} bytes")
        r = lab.verify(h)
        import re
        out = r.stdout + r.stderr
        collapsed = collapse(out)
        print(f"--- verify --anchors (root): exit {r.returncode}\n{collapsed}")
        results[name] = "BROKEN (exit 0)" if r.returncode == 0 else f"HOLDS (exit {r.returncode})"
    print("\nSUMMARY"); [print(f"  {k}: {v}") for k, v in results.items()]
finally:
    lab.close()
