"""A15: the strongest impostor an agent can build, on the person's real modal, next to the
person's own batch-run modal: clientInfo name "control centre" + version = the person's terminal
("attach pid N on /dev/pts/M", read from /proc), relay parent renamed "control centre" (comm),
SSH_CONNECTION claim. What each modal says."""
import os, subprocess, sys, time
from lib import *

HERE = os.path.dirname(os.path.abspath(__file__))
s = Serve()
t = None
try:
    t = Tmux(s, width=150, height=45)
    time.sleep(2)
    pane = subprocess.run(["tmux", "-S", t.sock, "display", "-p", "-t", t.name, "#{pane_pid}"], capture_output=True, text=True).stdout.strip()
    kids = subprocess.run(["pgrep", "-P", pane], capture_output=True, text=True).stdout.split()
    apid = kids[0] if kids else pane
    tty = os.readlink(f"/proc/{apid}/fd/0")
    you = f"attach pid {apid} on {tty}"
    log("person's terminal (from /proc):", you)
    c = Stdio(s, name="control centre", version=you, env={"SSH_CONNECTION": "10.9.8.7 2222 10.0.0.1 22"},
              argv=[sys.executable, f"{HERE}/wrap.py", "comm", "control centre", EXE, "relay", s.desc_path])
    b = bg(c.call, "android_uninstall_app", NOTES, 60)
    scr = t.wait_for("Asked by", timeout=10); time.sleep(0.8); scr = t.screen()
    log("== impostor's modal")
    for l in scr.splitlines():
        if any(k in l for k in ("Asked by", "(verified)", "Claims", "Warning", "reads like", "terminal")):
            log("   |", l.strip(" │")[:150])
    open("a15_impostor.txt", "w").write(scr)
    t.keys("n"); wait_box(b, 10)
    c.call("android_batch_save", {"id": "mine", "name": "Mine", "steps": [{"tool": "android_uninstall_app", "arguments": NOTES}]})
    c.close()
    t.keys("6"); time.sleep(1.5)
    t.keys("Enter"); time.sleep(0.3); t.keys("r"); time.sleep(0.3)
    scr = t.wait_for("Asked by", timeout=8)
    if not scr:
        # drive the run over a raw attach instead
        p = Person(s)
        p.send(type="batch", cmd={"cmd": "run", "task_id": "mine"})
        scr = t.wait_for("Asked by", timeout=10)
        p.close()
    time.sleep(0.8); scr = t.screen()
    log("== the person's own run modal")
    for l in scr.splitlines():
        if any(k in l for k in ("Asked by", "(verified)", "Claims", "Warning", "reads like", "terminal")):
            log("   |", l.strip(" │")[:150])
    open("a15_own.txt", "w").write(scr)
    t.keys("n"); time.sleep(1)
finally:
    if t:
        t.kill()
    s.stop()
