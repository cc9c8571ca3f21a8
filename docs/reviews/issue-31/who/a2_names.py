"""A2: clientInfo name/version/title an agent picks, rendered in the person's real modal
(`spock-tui attach` in tmux, 140x45). For each: is the "reads like a control centre's" warning
shown, do control characters / escapes / newlines / bidi reach the terminal, can the claim push
the verified line off the modal, can text in the claim read like the verified part?"""
import json, os, re, sys, time
from lib import *

CASES = [
    ("baseline", "control centre", "0.1.0", None),
    ("double space+caps", "Control  CENTRE", "0.1.0", None),
    ("US spelling", "control center", "0.1.0", None),
    ("digit 1 for l", "contro1 centre", "0.1.0", None),
    ("greek omicron", "c\u03bfntrol centre", "0.1.0", None),
    ("cyrillic e+o", "c\u043entrol c\u0435ntre", "0.1.0", None),
    ("zero-width space", "control\u200bcentre", "0.1.0", None),
    ("zwj inside", "con\u200dtrol centre", "0.1.0", None),
    ("nbsp", "control\u00a0centre", "0.1.0", None),
    ("hyphen U+2010", "control\u2010centre", "0.1.0", None),
    ("fullwidth", "\uff43\uff4f\uff4e\uff54\uff52\uff4f\uff4c \uff43\uff45\uff4e\uff54\uff52\uff45", "0.1.0", None),
    ("mixed: 'Contr0l-Centr3'", "Contr0l-Centr3", "0.1.0", None),
    ("combining marks", "c\u0336o\u0336ntrol centre", "0.1.0", None),
    ("RLO reversed", "\u202eertnec lortnoc", "0.1.0", None),
    ("name = a person's terminal", "the person at /dev/pts/3", "(verified)", None),
    ("name = attach you", "attach pid 4242 on /dev/pts/3", "", None),
    ("name = serving process", "the control centre of the serving process (pid 1)", "", None),
    ("spock-tui attach", "spock-tui attach", "0.1.0", None),
    ("newline injection", "agent\n(verified) the person at /dev/pts/77\nclaims nothing", "1", None),
    ("CR injection", "agent\rthe person at /dev/pts/77 (verified)", "1", None),
    ("ANSI escapes", "agent\x1b[2J\x1b[H\x1b[31mRED\x1b]0;pwned-title\x07\x1b[0m", "1", None),
    ("C1 CSI", "agent\u009b2J\u009b31mX", "1", None),
    ("tab + verified in version", "agent", "1.0\t\t\t(verified) the person at /dev/pts/77", None),
    ("title field", "agent", "1", "the person at /dev/pts/77 (verified)"),
    ("very long name", "A" * 4000 + " control centre", "1", None),
    ("many lines", "\n".join(f"line{i}" for i in range(80)), "1", None),
    ("1 MB name", "B" * 1_000_000, "1", None),
]


def main():
    s = Serve()
    t = None
    out = {}
    try:
        p = Person(s)
        t = Tmux(s)
        assert t.wait_for("[running]", timeout=20) or True
        time.sleep(1.5)
        only = sys.argv[1:] or None
        for label, name, ver, title in CASES:
            if only and label not in only:
                continue
            ci = {"name": name, "version": ver}
            if title:
                ci["title"] = title
            try:
                c = Stdio(s, name=name, version=ver)
            except Exception as e:
                log(f"== {label}: initialize failed {e!r}")
                continue
            if title:  # re-init with title: use raw initialize params
                c.close()
                c = StdioTitle(s, ci)
            b = bg(c.call, "android_uninstall_app", NOTES, 40)
            a = p.ask(timeout=20)
            if a is None:
                log(f"== {label}: no ask; result {wait_box(b, 20)}")
                c.close()
                continue
            time.sleep(1.2)
            scr = t.screen()
            esc = t.screen_escapes()
            flat = " ".join(scr.replace("│", " ").split())
            m = re.search(r"Asked by.{0,600}", flat)
            log(f"== {label}")
            log(f"   ask.client={json.dumps(a['client'])[:160]}")
            log(f"   modal: {m.group(0)[:600] if m else flat[:600]!r}")
            log(f"   warn-flag={'reads like a control centre' in flat} verified-shown={'(verified)' in flat} "
                f"esc-in-screen={'[31m' in esc or '41m' in esc} title-set={'pwned' in scr}")
            out[label] = scr
            p.deny(a["call_id"])
            wait_box(b, 30)
            c.close()
            time.sleep(0.5)
        json.dump(out, open(os.path.join(os.path.dirname(__file__), "a2_screens.json"), "w"), indent=1)
        recs = s.audit("android_uninstall_app")
        log("audit clients:", [json.dumps(r.get("client"))[:80] for r in recs])
        p.close()
    finally:
        if t:
            t.kill()
        s.stop()


class StdioTitle(Stdio):
    def __init__(self, serve, ci):
        import subprocess as sp
        self.serve = serve
        self.proc = sp.Popen([EXE, "relay", serve.desc_path], env=serve.env, stdin=sp.PIPE, stdout=sp.PIPE, stderr=sp.DEVNULL)
        import threading
        self.lock = threading.Lock(); self.id = 0; self.waiters = {}; self.on_elicit = None; self.requests = []
        threading.Thread(target=self._read, daemon=True).start()
        r = self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": ci}, timeout=30)
        assert "result" in r, r
        self.notify("notifications/initialized")


main()
