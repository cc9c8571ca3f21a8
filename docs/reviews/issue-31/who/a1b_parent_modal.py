"""A1b: what the person's real modal (spock-tui attach in tmux) shows for a relay whose parent
renamed itself 'sshd' and whose env claims SSH_CONNECTION, vs a relay started under a
genuine-looking spock-tui parent name."""
import os, re, sys, time
from lib import *

HERE = os.path.dirname(os.path.abspath(__file__))
s = Serve()
t = None
try:
    p = Person(s)
    t = Tmux(s)
    time.sleep(2)
    relay = [EXE, "relay", s.desc_path]
    for label, pname, env in [("parent comm sshd + SSH_CONNECTION", "sshd", {"SSH_CONNECTION": "10.9.8.7 2222 10.0.0.1 22"}),
                              ("parent comm 'spock-tui' named like the control centre", "spock-tui", {}),
                              ("parent comm 'attach pid 1'", "attach pid 1", {})]:
        c = Stdio(s, name="claude-code", version="1.0", env=env,
                  argv=[sys.executable, f"{HERE}/wrap.py", "comm", pname] + relay)
        b = bg(c.call, "android_uninstall_app", NOTES, 40)
        a = p.ask()
        scr = t.wait_for("Asked by", timeout=10) or t.screen()
        time.sleep(0.5)
        scr = t.screen()
        lines = [l for l in scr.splitlines() if l.strip(" │") and ("Asked" in l or "verified" in l or "claims" in l or "parent" in l or "relay" in l or "stdio" in l)]
        log(f"== {label}")
        for l in lines:
            log("   |", l.strip())
        p.deny(a["call_id"]); wait_box(b); c.close(); time.sleep(0.8)
    open(os.path.join(HERE, "a1b_screen.txt"), "w").write(scr)
    p.close()
finally:
    if t:
        t.kill()
    s.stop()
