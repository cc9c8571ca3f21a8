"""Promise 3: what runs is exactly what the person was shown, also when the file is rewritten and
reloaded while the call waits for the yes. The elicitation hook (the moment the person reads the
question) rewrites the tool's file (other command / level / pattern / deleted), runs
`spock-tui tools reload`, waits, then approves. Effect checked on the virtual device."""
import asyncio, json, sys, os, time
import os as _os; sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from harness import *

def tool(cmd, level="destructive", pattern=None, name="atk_toc"):
    p = f'pattern = "{pattern}"\n' if pattern else ""
    return f"[[tool]]\nname = \"{name}\"\ndescription = \"t\"\nlevel = \"{level}\"\ncommand = '{cmd}'\n[tool.params.v]\ntype = \"string\"\ndescription = \"v\"\n{p}"

SCEN = [
  ("other key", tool("settings put global tocB {v}")),
  ("now safe level", tool("settings put global tocB {v}", level="safe")),
  ("now read-only", tool("settings put global tocB {v}", level="read-only")),
  ("pattern narrowed", tool("settings put global tocA {v}", pattern="[0-9]+")),
  ("deleted", None),
  ("broken file", "[[tool]\nname = "),
  ("renamed tool", tool("settings put global tocB {v}", name="atk_toc2")),
]

async def run(label, newtext):
    with Spock(tools={"toc.toml": tool("settings put global tocA {v}")}) as sp:
        async def hook(d):
            if newtext is None:
                os.remove(f"{sp.home}/config/tools.d/toc.toml")
            else:
                sp.write_tool("toc.toml", newtext)
            r = await asyncio.to_thread(sp.reload)
            await asyncio.sleep(1.5)
            hook.reload = (r.stdout + r.stderr).strip().replace("\n", " | ")[:200]
        el = Elicit(True, hook=hook)
        async with sp.session(el) as s:
            r = await call(s, "atk_toc", {"v": "abc"})
        shown = el.seen[0]["message"].split("Arguments:")[1].split("Approve")[0].strip() if el.seen else None
        a = sp.adb("settings get global tocA").strip(), sp.adb("settings get global tocB").strip()
        ran = [x.get("arguments", {}).get("expandedCommand") + " -> " + x.get("outcome") for x in sp.audit() if x.get("outcome") != "started"]
        print(f"== {label}: reload said: {getattr(hook,'reload',None)}\n   shown: {json.loads(shown)['expandedCommand'] if shown else None}\n   result: {show(r)[:200]}\n   device tocA={a[0]} tocB={a[1]}  audit: {ran}")

async def main():
    for label, text in SCEN:
        await run(label, text)
asyncio.run(main())
