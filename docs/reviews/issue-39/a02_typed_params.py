"""Promise 7: typed parameters. Type confusion, bounds, enum/pattern edge cases, extra arguments,
leading '-' (option smuggling), and the integer sign (an unbounded integer reaching `kill` as -1)."""
import asyncio, json, sys
import os as _os; sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from harness import *

TOOLS = r'''
[[tool]]
name = "atk_int"
description = "int"
level = "safe"
command = "settings put global atk_int {n}"
[tool.params.n]
type = "integer"
description = "n"
minimum = 1
maximum = 100

[[tool]]
name = "atk_kill"
description = "kill a process by pid"
level = "safe"
command = "kill {pid}"
[tool.params.pid]
type = "integer"
description = "pid"

[[tool]]
name = "atk_bool"
description = "b"
level = "safe"
command = "settings put global atk_bool {b}"
[tool.params.b]
type = "boolean"
description = "b"

[[tool]]
name = "atk_enum"
description = "e"
level = "safe"
command = "settings put global atk_enum {e}"
[tool.params.e]
type = "string"
description = "e"
enum = ["yes", "no"]

[[tool]]
name = "atk_pat"
description = "p"
level = "safe"
command = "settings put global atk_pat {p}"
[tool.params.p]
type = "string"
description = "p"
pattern = "[a-z]+(\\.[a-z]+)+"

[[tool]]
name = "atk_str"
description = "s"
level = "safe"
command = "settings put global atk_str {s}"
[tool.params.s]
type = "string"
description = "s"

[[tool]]
name = "atk_logcat_tag"
description = "logcat lines of one tag"
level = "read-only"
command = "logcat -d -s {tag}"
[tool.params.tag]
type = "string"
description = "tag"
pattern = "[A-Za-z0-9_.-]+"
'''

CASES = [
    ("atk_int", {"n": "5"}), ("atk_int", {"n": "5; reboot"}), ("atk_int", {"n": 5.0}), ("atk_int", {"n": 5.5}),
    ("atk_int", {"n": 1e2}), ("atk_int", {"n": 0}), ("atk_int", {"n": 101}), ("atk_int", {"n": -1}),
    ("atk_int", {"n": 2**64}), ("atk_int", {"n": True}), ("atk_int", {"n": None}), ("atk_int", {"n": [5]}),
    ("atk_int", {}), ("atk_int", {"n": 5, "x": 1}), ("atk_int", {"n": 5, "expandedCommand": "settings put global atk_int 99"}),
    ("atk_int", {"n": 5, "serial": "sim-1; settings put global pwned 1"}), ("atk_int", {"n": 5, "serial": "sim-1"}),
    ("atk_int", {"n": 5, "N": 7}), ("atk_int", {"n": 5, "n ": 7}),
    ("atk_kill", {"pid": -1}), ("atk_kill", {"pid": -9}), ("atk_kill", {"pid": -2**63}), ("atk_kill", {"pid": 0}),
    ("atk_bool", {"b": True}), ("atk_bool", {"b": "true"}), ("atk_bool", {"b": 1}), ("atk_bool", {"b": "true; x"}),
    ("atk_enum", {"e": "yes"}), ("atk_enum", {"e": "YES"}), ("atk_enum", {"e": "yes "}), ("atk_enum", {"e": "yes\n"}),
    ("atk_enum", {"e": ["yes"]}), ("atk_enum", {"e": "ｙes"}),
    ("atk_pat", {"p": "a.b"}), ("atk_pat", {"p": "a.b\n"}), ("atk_pat", {"p": "a.b\nc"}), ("atk_pat", {"p": "a.b; x"}),
    ("atk_pat", {"p": "ａ.b"}), ("atk_pat", {"p": "a.b\u0000"}),
    ("atk_str", {"s": "-rf"}), ("atk_str", {"s": "--user"}), ("atk_str", {"s": " -rf"}), ("atk_str", {"s": "\t-x"}),
    ("atk_str", {"s": "\n-x"}), ("atk_str", {"s": "\u2212x"}), ("atk_str", {"s": "\u00ad-x"}), ("atk_str", {"s": "\ufeff-x"}),
    ("atk_str", {"s": "-"}), ("atk_str", {"s": 5}), ("atk_str", {"s": None}), ("atk_str", {"s": {"a": 1}}),
    ("atk_logcat_tag", {"tag": "MyTag"}), ("atk_logcat_tag", {"tag": "-c"}), ("atk_logcat_tag", {"tag": "--clear"}),
]

async def main(sp):
    async with sp.session(Elicit(True)) as s:
        before = sp.adb("logcat -d")
        r = await call(s, "atk_logcat_tag", {"tag": "-c"})
        after = sp.adb("logcat -d")
        print(f"read-only atk_logcat_tag tag='-c' (pattern [A-Za-z0-9_.-]+): {show(r)[:120]}\n   device log lines before={len(before.splitlines())} after={len(after.splitlines())}")
        for name, args in CASES:
            r = await call(s, name, args)
            print(f"{name} {json.dumps(args)[:90]} -> {show(r)[:230]}")
    print("--- audited expanded commands:")
    for a in sp.audit():
        if a.get("tool", "").startswith("atk_"):
            ec = a.get("arguments", {}).get("expandedCommand")
            print(a["seq"], a["tool"], a.get("outcome"), json.dumps(a.get("arguments"))[:150], (a.get("error") or "")[:100])
            if ec and "kill" in ec:
                print("   mksh argv:", mksh_eval(ec)[0])
    print("device:", {k: sp.adb(f"settings get global {k}").strip() for k in ["atk_int", "atk_bool", "atk_str", "pwned"]})

with Spock(tools={"atk.toml": TOOLS}) as sp:
    asyncio.run(main(sp))
