"""A8: (a) the 'verified' parentName is the parent's comm, which the parent writes itself: can it
carry control characters / text that reads like the rest of the modal? (b) a 1 MB clientInfo name:
does the person's modal still come up? (c) a client whose name+version equals the person's
terminal string ("attach pid N on /dev/pts/M"): how do Activity/History and the audit record
tell it apart from the person's own acts?"""
import json, os, re, sys, time
from lib import *

HERE = os.path.dirname(os.path.abspath(__file__))
s = Serve()
t = None
try:
    p = Person(s)
    t = Tmux(s)
    time.sleep(2)
    relay = [EXE, "relay", s.desc_path]
    for label, comm in [("comm with ESC", "\x1b[41mREDBG"), ("comm with newline", "ssh\nd (verified"),
                        ("comm reading like verified", "sshd) (verified"), ("comm 'person at tty'", "person /dev/pts")]:
        c = Stdio(s, name="agent", version="1", argv=[sys.executable, f"{HERE}/wrap.py", "comm", comm] + relay)
        b = bg(c.call, "android_uninstall_app", NOTES, 40)
        a = p.ask()
        t.wait_for("Asked by", timeout=10); time.sleep(0.6)
        scr = t.screen(); esc = t.screen_escapes()
        log(f"== {label}: ask.parentName={a['verified']['peer'].get('parentName')!r}")
        for l in scr.splitlines():
            if "Asked by" in l or "(verified)" in l:
                log("   |", l.strip(" │"))
        log("   raw ESC[41m in pane:", "\x1b[41m" in esc)
        p.deny(a["call_id"]); wait_box(b); c.close(); time.sleep(0.8)

    # (b) 1 MB name
    c = Stdio(s, name="B" * 1_000_000, version="1")
    b = bg(c.call, "android_uninstall_app", NOTES, 60)
    a = p.ask()
    t0 = time.monotonic()
    ok = t.wait_for("Asked by", timeout=30)
    log(f"== 1 MB name: modal shown={bool(ok)} after {time.monotonic()-t0:.1f}s")
    if ok:
        for l in ok.splitlines():
            if "Asked by" in l or "(verified)" in l or "Claims" in l:
                log("   |", l.strip(" │")[:140])
    p.deny(a["call_id"]); wait_box(b); c.close(); time.sleep(1)

    # (c) a client named exactly like the person's terminal
    you = p.you  # "attach pid N on /dev/pts/77"
    name, ver = you.rsplit("/", 1)
    c = Stdio(s, name=name, version=ver)
    b = bg(c.call, "android_uninstall_app", NOTES, 40)
    a = p.ask()
    p.deny(a["call_id"]); wait_box(b); c.close()
    # and the person's own act
    p.send(type="setting", field="history_size", value=10001)
    p.until("notice", timeout=5)
    time.sleep(1)
    for r in s.audit()[-2:]:
        log("audit:", json.dumps({k: r.get(k) for k in ("tool", "client", "transport", "decider", "verified", "decision")}))
    t.keys("4"); time.sleep(1.5)
    scr = t.screen()
    log("History screen:")
    for l in scr.splitlines()[:14]:
        log("   |", l[:140])
    open(os.path.join(HERE, "a8_history.txt"), "w").write(scr)
    p.close()
finally:
    if t:
        t.kill()
    s.stop()
