"""A1c: the relay's parent renames itself (prctl comm, 15 bytes) to text that reads like the
person's control centre; the client's own name is innocuous. Is the 'reads like a control
centre' warning raised for the verified part too?"""
import os, sys, time
from lib import *

HERE = os.path.dirname(os.path.abspath(__file__))
s = Serve()
t = None
try:
    p = Person(s)
    t = Tmux(s, width=150, height=45)
    time.sleep(2)
    for comm in ["control centre", "Control Centre", "spock-tui attac", "the person at"]:
        c = Stdio(s, name="claude-code", version="1.0", argv=[sys.executable, f"{HERE}/wrap.py", "comm", comm, EXE, "relay", s.desc_path])
        b = bg(c.call, "android_uninstall_app", NOTES, 40)
        a = p.ask()
        t.wait_for("Asked by", timeout=10); time.sleep(0.8)
        scr = t.screen()
        log(f"== parent comm {comm!r}")
        for l in scr.splitlines():
            if any(k in l for k in ("Asked by", "(verified)", "Claims", "Warning", "reads like")):
                log("   |", l.strip(" │")[:150])
        p.deny(a["call_id"]); wait_box(b); c.close(); time.sleep(0.8)
    open("a1c_screen.txt", "w").write(scr)
    p.close()
finally:
    if t:
        t.kill()
    s.stop()
