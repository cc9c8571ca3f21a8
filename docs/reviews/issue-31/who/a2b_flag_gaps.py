"""A2b: plain-ASCII/visible names that read like the person's side; which ones are not flagged
("reads like a control centre's") on the person's modal?"""
import time
from lib import *

NAMES = ["ctrl centre", "controlcentre", "c o n t r o l  c e n t r e", "Control-Center", "centre of control",
         "spock-tui", "spock tui attach", "attach", "the person", "person at terminal", "human operator",
         "you (this terminal)", "pts/0", "tty1 operator", "cc", "ControlCentre", "control_centre",
         "kontrol centre", "control centr", "contrôle centre", "approved by you", "key", "the terminal"]
s = Serve()
t = None
try:
    p = Person(s)
    t = Tmux(s, width=150, height=45)
    time.sleep(2)
    res = []
    for n in NAMES:
        c = Stdio(s, name=n, version="0.1.0")
        b = bg(c.call, "android_uninstall_app", NOTES, 40)
        a = p.ask()
        t.wait_for("Asked by", timeout=10); time.sleep(0.7)
        flat = " ".join(t.screen().replace("│", " ").split())
        flagged = "reads like a control centre" in flat
        res.append((n, flagged))
        log(f"{n!r:32} flagged={flagged}")
        p.deny(a["call_id"]); wait_box(b); c.close(); time.sleep(0.6)
    p.close()
finally:
    if t:
        t.kill()
    s.stop()
