"""Promise 6 (redaction): can an agent read, through own tools, what a redaction rule hides?
Rules: `SECRET-[0-9]+` (agent_only) and a context rule `pin: [0-9]+` (everywhere). The device holds
them in a setting and a file. Paths: plain output, kv-parsed fields (typed string/integer), an
error path (non-zero exit with the secret on stdout), a grep oracle (match / no match, one
character at a time), and the secret given back as an argument (audit / expandedCommand)."""
import asyncio, json, sys, re
import os as _os; sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from harness import *

CFG = r'''
[[redaction.rules]]
name = "tok"
pattern = "SECRET-[0-9]+"
scope = "agent_only"

[[redaction.rules]]
name = "pin"
pattern = "pin: [0-9]+"
scope = "everywhere"
'''

TOOLS = {"r.toml": r'''
[[tool]]
name = "atk_get"
description = "get a global setting"
level = "read-only"
command = "settings get global {k}"
[tool.params.k]
type = "string"
description = "k"

[[tool]]
name = "atk_cat"
description = "read a file"
level = "read-only"
command = "cat {f}"
[tool.params.f]
type = "string"
description = "f"

[[tool]]
name = "atk_kv"
description = "read a kv file"
level = "read-only"
command = "cat {f}"
output = "kv"
separator = ":"
fields = { pin = "integer", token = "string" }
[tool.params.f]
type = "string"
description = "f"

[[tool]]
name = "atk_cat_err"
description = "read the file and another"
level = "read-only"
command = "cat /sdcard/s.txt {f}"
[tool.params.f]
type = "string"
description = "f"

[[tool]]
name = "atk_grep"
description = "does the file hold this?"
level = "read-only"
command = "grep {re} /sdcard/s.txt"
[tool.params.re]
type = "string"
description = "regex"

[[tool]]
name = "atk_put"
description = "put a global setting"
level = "safe"
command = "settings put global echo {v}"
[tool.params.v]
type = "string"
description = "v"
'''}

async def main(sp):
    sp.adb("settings put global tok SECRET-48151")
    sp.adb("echo 'token: SECRET-48151' > /sdcard/s.txt; echo 'pin: 2342' >> /sdcard/s.txt")
    print("device file (truth):", sp.adb("cat /sdcard/s.txt").replace("\n", " | "))
    async with sp.session(Elicit(True)) as s:
        for name, args in [("atk_get", {"k": "tok"}), ("atk_cat", {"f": "/sdcard/s.txt"}), ("atk_kv", {"f": "/sdcard/s.txt"}),
                           ("atk_cat_err", {"f": "/nonexistent"}), ("atk_put", {"v": "SECRET-99999"}), ("atk_put", {"v": "pin: 1111"}),
                           ("atk_grep", {"re": "SECRET.4"})]:
            print(f"{name} {args}: {show(await call(s, name, args))[:400]}")
        # oracle: recover the secret one character at a time without ever printing it
        known = "SECRET."
        for _ in range(6):
            for c in "0123456789":
                r = await call(s, "atk_grep", {"re": known + c})
                if not (getattr(r, "isError", None) or getattr(r, "is_error", None)):
                    known += c
                    break
            else:
                break
        print("grep oracle recovered:", known)
        # pin via grep oracle too
        pin = "pin. "
        for _ in range(4):
            for c in "0123456789":
                r = await call(s, "atk_grep", {"re": pin + c})
                if not (getattr(r, "isError", None) or getattr(r, "is_error", None)):
                    pin += c; break
        print("grep oracle recovered pin:", pin)
    raw = sp.audit_raw()
    print("audit holds SECRET-48151:", "SECRET-48151" in raw, "| holds 'pin: 2342':", "pin: 2342" in raw, "| holds 2342:", "2342" in raw)
    for a in sp.audit():
        if a.get("tool") in ("atk_kv", "atk_put", "atk_cat"):
            print("  audit", a["seq"], a["tool"], json.dumps(a.get("arguments"))[:150], json.dumps(a.get("result"))[:200], (a.get("error") or "")[:100])

KV_DEFAULT = r'''
[[tool]]
name = "atk_kv2"
description = "read a credentials file"
level = "read-only"
command = "cat {f}"
output = "kv"
separator = ":"
fields = { token = "string", password = "string", secret = "string", pin = "integer" }
[tool.params.f]
type = "string"
description = "f"

[[tool]]
name = "atk_kv_eq"
description = "read a properties file"
level = "read-only"
command = "cat {f}"
output = "kv"
separator = "="
fields = { apiKey = "string", password = "string" }
[tool.params.f]
type = "string"
description = "f"

[[tool]]
name = "atk_raw"
description = "read a file"
level = "read-only"
command = "cat {f}"
[tool.params.f]
type = "string"
description = "f"
'''

async def default_rules(sp):
    sp.adb("echo 'token: tk_live_9f8e7d6c5b4a' > /sdcard/c.txt; echo 'password: hunter2xyz' >> /sdcard/c.txt; echo 'secret: opensesame42' >> /sdcard/c.txt; echo 'Authorization: Bearer abcdef123456' >> /sdcard/c.txt")
    sp.adb("echo 'api_key=AKIAIOSFODNN7EXAMPLE' > /sdcard/p.txt; echo 'password=hunter2xyz' >> /sdcard/p.txt")
    async with sp.session(Elicit(True)) as s:
        print("raw  :", show(await call(s, "atk_raw", {"f": "/sdcard/c.txt"}))[:400])
        print("kv   :", show(await call(s, "atk_kv2", {"f": "/sdcard/c.txt"}))[:400])
        print("raw= :", show(await call(s, "atk_raw", {"f": "/sdcard/p.txt"}))[:300])
        print("kv=  :", show(await call(s, "atk_kv_eq", {"f": "/sdcard/p.txt"}))[:300])
    raw = sp.audit_raw()
    print("audit holds hunter2xyz:", "hunter2xyz" in raw, "| opensesame42:", "opensesame42" in raw, "| tk_live:", "tk_live_9f8e7d6c5b4a" in raw)

print("=== A: custom rules (tok agent_only, pin everywhere)")
with Spock(tools=TOOLS, config=CFG) as sp:
    asyncio.run(main(sp))
print("=== B: built-in rules only (default config), kv output")
with Spock(tools={"kv.toml": KV_DEFAULT}) as sp:
    asyncio.run(default_rules(sp))
