"""Promise 1: every parameter value reaches the device shell as one inert word.
Liberal string params (no pattern) in several templates; payloads with metacharacters.
Checks: (a) the device value read back equals the payload, (b) the canary setting stays unset,
(c) the audited expandedCommand, run in a real mksh with stub commands, gives exactly one argv word."""
import asyncio, json, sys
import os as _os; sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from harness import *

TOOLS = r'''
[[tool]]
name = "atk_put"
description = "put a setting"
level = "safe"
command = "settings put global atk_key {v}"
[tool.params.v]
type = "string"
description = "value"

[[tool]]
name = "atk_get"
description = "get a setting"
level = "read-only"
command = "settings get global {k}"
[tool.params.k]
type = "string"
description = "key"

[[tool]]
name = "atk_echo"
description = "echo"
level = "read-only"
command = "echo {v}"
[tool.params.v]
type = "string"
description = "value"
'''

CANARY = "settings put global pwned 1"
PAYLOADS = [
    f"x; {CANARY}", f"x && {CANARY}", f"x | {CANARY}", f"x || {CANARY}", f"x & {CANARY}",
    f"$({CANARY})", f"`{CANARY}`", f"x\n{CANARY}", f"x\r\n{CANARY}", f"x'; {CANARY}; echo '",
    f"x'\\''; {CANARY}; '", f'x"; {CANARY}; "', f"x\\'; {CANARY}", "*", "/sdcard/*", "~", "$HOME",
    "${IFS}", "a b", "a\tb", "a\x0bb", "héllo ☃ 𝕏 \u202e", "\u2028" + CANARY, "x" * 100000,
    "x\x00; " + CANARY, "'", "''", "\\", "\\'", "", " ", "#x; " + CANARY, f"x > /sdcard/pwn", f"x < /dev/null; {CANARY}",
    f"$'\\x27'; {CANARY}", "!!", "{a,b}", "a=b " + CANARY, "\x1b[2J\x1b[Hfake", f"x\x00'; {CANARY}",
]

async def main(sp):
    results = []
    async with sp.session(Elicit(True)) as s:
        for p in PAYLOADS:
            r = await call(s, "atk_put", {"v": p})
            txt = show(r)
            dev = sp.adb("settings get global atk_key").rstrip("\n")
            pw = sp.adb("settings get global pwned").strip()
            r2 = await call(s, "atk_echo", {"v": p})
            results.append((p, txt[:300], dev[:200], pw, show(r2)[:300]))
    audit = sp.audit()
    cmds = [a["arguments"].get("expandedCommand") for a in audit if a.get("tool") == "atk_put" and "arguments" in a]
    bad = 0
    for (p, txt, dev, pw, echo), cmd in zip(results, cmds + [None] * 100):
        one = None
        if cmd is not None:
            log, _, err = mksh_eval(cmd)
            one = (log == "settings [put] [global] [atk_key] [" + p + "]")
        flag = "BAD" if (pw != "null" or one is False) else "ok"
        if flag == "BAD": bad += 1
        print(f"--- {flag} payload={p[:60]!r}\n  call: {txt[:200]}\n  device atk_key={dev[:80]!r} pwned={pw!r}\n  expanded={str(cmd)[:160]!r}\n  mksh one-word: {one}\n  echo: {echo[:160]}")
    print("audit records:", len(audit), "BAD:", bad)

with Spock(tools={"atk.toml": TOOLS}) as sp:
    asyncio.run(main(sp))
    print(sp.tools_list().stdout[-500:])
