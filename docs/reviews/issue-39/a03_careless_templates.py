"""Careless-but-honest templates: which ones the loader accepts, and what a value does in them.
Every template is its own file (level = "safe": no person is asked). Each accepted tool is called
with command-shaped values; for each call: the server's answer (ran / refused by the guard), the
audited expandedCommand, and what a real mksh (Android's /system/bin/sh) runs for it (stub commands
that log argv). The virtual device is checked too (its shell does not do $(...), sh -c, eval)."""
import asyncio, json, os, sys, subprocess
import os as _os; sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from harness import *

TPL = {
 # command interpreters taking the value as code
 "sh_c": "sh -c {x}", "mksh_c": "/system/bin/sh -c {x}", "toybox_sh": "toybox sh -c {x}",
 "eval": "eval {x}", "eval2": "eval settings put global k {x}", "su_c": "su -c {x}", "su_0": "su 0 sh -c {x}",
 "run_as": "run-as com.example.shop sh -c {x}", "echo_sh": "echo {x} | sh", "xargs": "echo {x} | xargs settings put global k",
 "xargs_sh": "echo {x} | xargs -I@ sh -c @", "trap": "trap {x} EXIT", "alias_like_cmdpos": "{x} --help",
 "cmd_pos2": "settings put global k v; {x}", "comment_then_nl": "settings put global k v #\n{x}",
 "awk": "awk {x} /proc/meminfo",
 # shell constructs where a single-quoted word is not inert
 "arith": "settings put global k $(( {x} ))", "heredoc": "cat <<EOF\n{x}\nEOF",
 "heredoc_sh": "sh <<EOF\nsettings put global k {x}\nEOF", "heredoc_pipe": "cat <<EOF | sh\nsettings put global k {x}\nEOF",
 "nested_dq": "settings put global k \"$(echo \"{x}\")\"",
 "cmdsub": "settings put global k $(echo {x})", "backq": "settings put global k `echo {x}`",
 "for": "for i in {x}; do settings put global k $i; done", "glob_adjacent": "settings put global k *{x}",
 # benign controls
 "broadcast": "am broadcast -a com.team.X --es key {x}", "sh_c_safe": "sh -c 'settings put global k \"$1\"' _ {x}",
 "param_default": "settings put global k ${{UNSET:-{x}}}", "redir_out": "settings list global > {x}",
}

PAYLOADS = [
 "settings put global pwned 1",
 "$(settings put global pwned 1)",
 "a[$(settings put global pwned 1)]",
 "rm -rf /sdcard",
 "$(rm -rf /sdcard)",
 "a[$(rm -rf /sdcard)]",
 "pm uninstall com.example.shop",
 "$(pm uninstall com.example.shop)",
 "am broadcast -a android.intent.action.FACTORY_RESET -p android",
 "$(am broadcast -a android.intent.action.FACTORY_RESET -p android)",
 "reboot",
 "x; rm -rf /sdcard",
 "r''m -rf /sdcard",
 "$(echo cm0gLXJmIC9zZGNhcmQ= | base64 -d | sh)",
 "`rm -rf /sdcard`",
 "rm -rf /sdcard/*",
 "rm -r -f /storage/emulated/0",
 "a b",
]

def tool_toml(n, c):
    return f"[[tool]]\nname = \"atk_{n}\"\ndescription = \"t\"\nlevel = \"safe\"\ncommand = '''{c}'''\n[tool.params.x]\ntype = \"string\"\ndescription = \"x\"\n"

DANGER = ("rm [", "pm [uninstall", "am [broadcast] [-a] [android.intent.action.FACTORY_RESET", "reboot", "settings [put] [global] [pwned]")

async def main(sp, loaded):
    rows = []
    async with sp.session(Elicit(True)) as s:
        for n in loaded:
            for p in PAYLOADS:
                r = await call(s, f"atk_{n}", {"x": p})
                rows.append((n, p, r))
    aud = [a for a in sp.audit() if a.get("tool", "").startswith("atk_")]
    by = {}
    for a in aud:
        if a.get("outcome") in ("started",):
            continue
        by.setdefault(a["tool"], []).append(a)
    summary = {}
    for (n, p, r) in rows:
        recs = by.get(f"atk_{n}", [])
        rec = recs.pop(0) if recs else {}
        ec = rec.get("arguments", {}).get("expandedCommand")
        res = show(r)
        ran = not (getattr(r, "isError", False) or getattr(r, "is_error", False))
        refused = "guard" in res or "refus" in res
        real = ""
        if ec:
            log, out, err = mksh_eval(ec)
            real = log
        hits = [d for d in DANGER if d in real]
        tag = ("RAN+DANGER" if (ran and hits) else "refused" if refused else "ran" if ran else "error")
        summary.setdefault(n, []).append(tag)
        if tag == "RAN+DANGER" or (n in ("arith", "heredoc", "nested_dq", "sh_c") ):
            print(f"[{tag}] atk_{n} x={p!r}\n   outcome={rec.get('outcome')} expanded={ec!r}\n   server: {res[:220]}\n   mksh runs: {real.replace(chr(10), ' ; ')[:300]}")
    print("\n=== summary (per template: tags in payload order) ===")
    for n, tags in summary.items():
        c = {t: tags.count(t) for t in set(tags)}
        print(f"atk_{n:18s} {c}")
    print("device after: pwned=", sp.adb("settings get global pwned").strip(), "| packages:", sp.adb("pm list packages").split(), "| /sdcard:", sp.adb("ls /sdcard").split())

tools = {f"{n}.toml": tool_toml(n, c) for n, c in TPL.items()}
with Spock(tools=tools) as sp:
    time.sleep(0.5)
    lst = sp.tools_list().stdout
    loaded = [n for n in TPL if f"atk_{n} " in lst]
    print("not loaded:", [n for n in TPL if n not in loaded])
    asyncio.run(main(sp, loaded))
