"""Promise 6: access switches and the device tree apply to own tools, also through the batch runner;
destructive own tools in a batch still ask the person; batch steps are audited with their command.
S1 [access] disabled = ["atk_dis"]: direct, case variants, batch inline, batch saved+run.
S2 destructive own tool in a batch, the person declines / approves.
S3 device tree: interact=false, inspect=false, apps=[...] with and without the tool's `app`."""
import asyncio, json, sys, time
import os as _os; sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from harness import *

def T(name, cmd, level, extra="", param="v", pattern=None):
    p = f'pattern = "{pattern}"\n' if pattern else ""
    return f"[[tool]]\nname = \"{name}\"\ndescription = \"t\"\nlevel = \"{level}\"\ncommand = '{cmd}'\n{extra}[tool.params.{param}]\ntype = \"string\"\ndescription = \"v\"\n{p}"

TOOLS = {
 "dis.toml": T("atk_dis", "settings put global dis {v}", "safe"),
 "ok.toml": T("atk_ok", "settings put global okk {v}", "safe"),
 "des.toml": T("atk_des", "settings put global des {v}", "destructive"),
 "ro.toml": T("atk_ro", "settings get global {v}", "read-only"),
 "app.toml": T("atk_app", "am force-stop {package}", "safe", extra='app = "package"\n', param="package", pattern="[a-z]+(\\\\.[a-z]+)+"),
 "noapp.toml": T("atk_noapp", "am force-stop {package}", "safe", param="package", pattern="[a-z]+(\\\\.[a-z]+)+"),
}

async def batch_wait(s, rid):
    for _ in range(50):
        st = await call(s, "android_batch_history_get", {"runId": rid})
        txt = show(st)
        if any(k in txt for k in ['"state": "succeeded"', '"state": "failed"', '"state": "cancelled"', '"state": "timed_out"']):
            return st
        await asyncio.sleep(0.2)
    return st

def rid_of(r):
    sc = getattr(r, "structured_content", None) or {}
    if not sc:
        try: sc = json.loads(r.content[0].text)
        except Exception: pass
    return sc.get("runId")

async def s1():
    print("=== S1: access switch")
    with Spock(tools=TOOLS, config='[access]\ndisabled = ["atk_dis"]\n') as sp:
        async with sp.session(Elicit(True)) as s:
            for n in ["atk_dis", "ATK_DIS", "atk_dis ", "atk_dis\u200b"]:
                print(f"direct {n!r}:", show(await call(s, n, {"v": "direct"}))[:160])
            r = await call(s, "android_batch_run_inline", {"steps": [{"tool": "atk_dis", "arguments": {"v": "inline"}}]})
            print("inline:", show(r)[:200])
            if rid_of(r): print("   run:", show(await batch_wait(s, rid_of(r)))[:600])
            r = await call(s, "android_batch_save", {"name": "t", "steps": [{"tool": "atk_dis", "arguments": {"v": "saved"}}]})
            print("save:", show(r)[:200])
            tid = (getattr(r, "structured_content", None) or {}).get("id")
            if tid:
                r = await call(s, "android_batch_run", {"id": tid})
                print("run saved:", show(r)[:200])
                if rid_of(r): print("   run:", show(await batch_wait(s, rid_of(r)))[:600])
            st = show(await call(s, "spock_get_status", {}))
            print("status mentions atk_dis:", "atk_dis" in st)
        print("device dis =", sp.adb("settings get global dis").strip())
        for a in sp.audit(): print("  audit", a["seq"], a.get("tool"), a.get("outcome"), a.get("arguments"), (a.get("error") or "")[:90])

async def s2():
    for approve in (False, True):
        print(f"=== S2: destructive own tool in a batch, person {'approves' if approve else 'declines'}")
        with Spock(tools=TOOLS) as sp:
            el = Elicit(approve)
            async with sp.session(el) as s:
                r = await call(s, "android_batch_run_inline", {"steps": [{"tool": "atk_des", "arguments": {"v": f"batch{approve}"}}, {"tool": "atk_ok", "arguments": {"v": "x; y"}}]})
                print("inline:", show(r)[:200])
                if rid_of(r): print("   run:", show(await batch_wait(s, rid_of(r)))[:900])
                r = await call(s, "android_batch_run_inline", {"steps": [{"tool": "atk_ok", "arguments": {"v": "a", "extra": 1}}, {"tool": "atk_ok", "arguments": {"v": "-rf"}}]})
                print("inline bad args:", show(r)[:300])
            print("asked:", [e["message"].split("Arguments:")[1][:90].replace("\n", " ") for e in el.seen])
            print("device des =", sp.adb("settings get global des").strip(), " okk =", sp.adb("settings get global okk").strip())
            for a in sp.audit(): print("  audit", a["seq"], a.get("tool"), a.get("outcome"), a.get("arguments"), a.get("decision"), (a.get("error") or "")[:90])

async def s3():
    for label, cfg in [("interact=false", "[access.devices.default]\ninteract = false\n"),
                       ("inspect=false", "[access.devices.default]\ninspect = false\n"),
                       ("apps=[shop]", '[access.devices.default]\napps = ["com.example.shop"]\n')]:
        print(f"=== S3: device tree {label}")
        with Spock(tools=TOOLS, config=cfg) as sp:
            async with sp.session(Elicit(True)) as s:
                for name, args in [("atk_ok", {"v": "s3"}), ("atk_ro", {"v": "okk"}), ("atk_app", {"package": "com.example.shop"}),
                                   ("atk_app", {"package": "com.example.notes"}), ("atk_noapp", {"package": "com.example.notes"}),
                                   ("atk_app", {"package": "com.example.notes", "serial": "sim-1"})]:
                    print(f"  {name} {args}: {show(await call(s, name, args))[:170]}")
                r = await call(s, "android_batch_run_inline", {"steps": [{"tool": "atk_ok", "arguments": {"v": "s3batch"}}, {"tool": "atk_app", "arguments": {"package": "com.example.notes"}}]})
                if rid_of(r): print("  batch:", show(await batch_wait(s, rid_of(r)))[:700])
            print("  device okk =", sp.adb("settings get global okk").strip())

async def main():
    await s1(); await s2(); await s3()
asyncio.run(main())
