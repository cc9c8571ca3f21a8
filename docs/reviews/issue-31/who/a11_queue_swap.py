"""A11: two identical destructive calls from two different askers queued at the person's real
control centre (tmux). The first (agent "trusted-ide") is withdrawn (its relay dies) and the
second (agent "impostor", different relay/parent) takes its place. Does the TUI tell the attach
server `displayed` for the queued call before it is on screen (so a 'y' meant for the first
approves the second without the 0.6 s arming)? The attach process's socket writes are traced
with strace."""
import json, os, re, subprocess, time
from lib import *

s = Serve()
t = None
tr = None
try:
    t = Tmux(s, width=150, height=45)
    time.sleep(2)
    pane = subprocess.run(["tmux", "-S", t.sock, "display", "-p", "-t", t.name, "#{pane_pid}"], capture_output=True, text=True).stdout.strip()
    # the attach process: the pane's process or its child
    pid = pane
    kids = subprocess.run(["pgrep", "-P", pane], capture_output=True, text=True).stdout.split()
    if kids:
        pid = kids[0]
    log("attach pid", pid, open(f"/proc/{pid}/comm").read().strip())
    trace = os.path.join(s.tmp, "strace.txt")
    tr = subprocess.Popen(["strace", "-f", "-tt", "-e", "trace=write,sendto,sendmsg,writev", "-s", "200", "-p", pid, "-o", trace])
    time.sleep(1)
    A = Stdio(s, name="trusted-ide", version="1")
    B = Stdio(s, name="impostor", version="1")
    ba = bg(A.call, "android_uninstall_app", NOTES, 60)
    time.sleep(0.3)
    bb = bg(B.call, "android_uninstall_app", NOTES, 60)
    t.wait_for("trusted-ide", timeout=10)
    time.sleep(1.5)
    log("screen 1 claims line:", [l.strip(" │") for l in t.screen().splitlines() if "Claims" in l])
    t.keys("Tab")  # move focus to Approve, as a person about to approve
    time.sleep(0.2)
    A.proc.kill()  # the first asker goes away
    t0 = time.time()
    time.sleep(0.15)
    t.keys("Enter")  # the person's press, meant for the first
    time.sleep(1.5)
    scr = t.screen()
    log("screen 2 claims line:", [l.strip(" │") for l in scr.splitlines() if "Claims" in l or "too early" in l or "available" in l])
    log("impostor's call done:", not bb["t"].is_alive(), "notes installed:", installed(s))
    tr.terminate(); tr.wait()
    lines = [l for l in open(trace) if "displayed" in l or "decide" in l]
    for l in lines:
        log("   trace:", re.sub(r"\s+", " ", l)[:200])
    if bb["t"].is_alive():
        t.keys("n")
    wait_box(bb, 10)
    for r in s.audit():
        if r["tool"] in ("android_uninstall_app", "attach_decide"):
            log("audit:", json.dumps({k: r.get(k) for k in ("tool", "client", "outcome", "decision", "decider", "arguments")})[:250])
    B.close()
finally:
    if tr and tr.poll() is None:
        tr.terminate()
    if t:
        t.kill()
    s.stop()
