"""A10: via_client on the person's real screen. The client is asked (elicitation held); the person
attaches with `spock-tui attach` (tmux) and sees the modal; the client answers yes. What does
the modal show now (is the client's yes shown as a claim, does it look approved, does the modal
stay armed for the person)? Then the person presses n. What ran, what the record says."""
import json, threading, time
from lib import *

ev = threading.Event()
asked = []
def on_elicit(prm):
    asked.append(prm); ev.wait(60)
    return {"action": "accept", "content": {"approve": True}}

s = Serve(config=VIA_CLIENT.format(secs=60))
t = None
try:
    c = Stdio(s, name="claude-code", version="2.0", on_elicit=on_elicit)
    b = bg(c.call, "android_uninstall_app", NOTES, 90)
    while not asked:
        time.sleep(0.05)
    t = Tmux(s, width=150, height=45)
    scr = t.wait_for("Asked by", timeout=20)
    log("modal came up for the person:", bool(scr))
    time.sleep(1)
    ev.set()
    time.sleep(1.5)
    scr = t.screen()
    open("a10_screen.txt", "w").write(scr)
    for l in scr.splitlines():
        if any(k in l for k in ("Asked", "verified", "laims", "client", "Client", "says", "said", "pprove", "Deny", "Denied")):
            log("   |", l.strip(" │")[:150])
    log("call still waiting:", b["t"].is_alive(), "notes installed:", installed(s))
    t.keys("n"); time.sleep(1.5)
    log("after n:", wait_box(b, 10))
    r = s.audit("android_uninstall_app")[-1]
    log("audit:", json.dumps({k: r.get(k) for k in ("outcome", "decision", "decider", "verified")}))
    c.close()
finally:
    if t:
        t.kill()
    s.stop()
