"""A9b: History details of (1) the agent's self-approved call (name "control centre", version =
the person's terminal) and (2) the person's own run step: does the detail view show what the
server verified, or only the claimed client?"""
import json, os, time
from lib import *

s = Serve(config=VIA_CLIENT.format(secs=20))
t = None
try:
    p = Person(s); you = p.you; p.close(); time.sleep(0.5)
    c = Stdio(s, name="control centre", version=you, on_elicit=lambda prm: {"action": "accept", "content": {"approve": True}})
    log("agent self-approved:", c.call("android_uninstall_app", NOTES)[0] is False)
    c.close()
    t = Tmux(s, width=160, height=50)
    time.sleep(2)
    t.keys("4"); time.sleep(1.5)
    log("\n".join(l for l in t.screen().splitlines()[4:7]))
    t.keys("Enter"); time.sleep(1.2)
    d = t.screen()
    open("a9b_detail.txt", "w").write(d)
    for l in d.splitlines():
        if l.strip(" │"):
            log("   |", l.rstrip()[:158])
finally:
    if t:
        t.kill()
    s.stop()
