"""A1: the 'verified' parent process of the stdio relay is whatever the agent makes it.
The relay is started (i) under a parent that renamed itself (prctl comm) to sshd / tmux: server /
spock-tui, (ii) under a python whose argv[0] reads "sshd: alice@pts/3", (iii) orphaned (parent exits),
(iv) under a subreaper named like sshd; (v) relay binary itself copied as 'sshd'. For each:
what confirm_asked.verified says, and what the audit record keeps."""
import json, os, shutil, sys, time
from lib import *

HERE = os.path.dirname(os.path.abspath(__file__))
SSH = {"SSH_CONNECTION": "10.9.8.7 2222 10.0.0.1 22"}
s = Serve()
try:
    p = Person(s)
    relay = [EXE, "relay", s.desc_path]
    fake = os.path.join(s.tmp, "bin"); os.makedirs(fake)
    shutil.copy(EXE, os.path.join(fake, "sshd"))
    cases = [
        ("plain child of this script", None),
        ("comm=sshd", [sys.executable, f"{HERE}/wrap.py", "comm", "sshd"] + relay),
        ("comm='tmux: server'", [sys.executable, f"{HERE}/wrap.py", "comm", "tmux: server"] + relay),
        ("comm=spock-tui", [sys.executable, f"{HERE}/wrap.py", "comm", "spock-tui"] + relay),
        ("argv0='sshd: alice@pts/3'", [sys.executable, f"{HERE}/wrap.py", "argv0", "sshd: alice@pts/3"] + relay),
        ("orphan (parent exits)", [sys.executable, f"{HERE}/wrap.py", "orphan", "x"] + relay),
        ("subreaper comm=sshd", [sys.executable, f"{HERE}/wrap.py", "reaper", "sshd"] + relay),
        ("relay binary copied as 'sshd'", [os.path.join(fake, "sshd"), "relay", s.desc_path]),
    ]
    for label, argv in cases:
        c = Stdio(s, name="agent", version="1", env=SSH, argv=argv)
        b = bg(c.call, "android_uninstall_app", NOTES, 30)
        a = p.ask()
        log(f"== {label}\n   verified={json.dumps(a['verified'])}\n   client={a['client']} via={a['via']}")
        p.deny(a["call_id"])
        wait_box(b)
        c.close()
        time.sleep(0.2)
    recs = s.audit("android_uninstall_app")
    log("audit last record verified:", json.dumps(recs[-1].get("verified")), "claimedVia:", recs[-1].get("claimedVia"))
    p.close()
finally:
    s.stop()
