"""A5: content named indirectly through batch tasks.
(a) android_batch_run_inline with a push overwrite step; the file is rewritten while the step's
    modal is up; the person approves what the modal showed.
(b) android_batch_save task T (install_app replacing com.example.shop with v143), android_batch_run T;
    while the step waits, the APK file is rewritten AND task T is replaced (second save asks:
    the person denies that one); approve the waiting step.
(c) a saved task whose push step is approved, then the task's later step reuses the SAME localPath
    after the file changed (second step must show new digest)."""
import asyncio
from lab import *

async def main():
    lab = Lab()
    try:
        person = await Person.attach(lab)
        target = "/sdcard/Download/notes.txt"
        lab.dev_sh(f"echo old > {target}")
        src = lab.pulls() / "notes.txt"
        shown = b"the approved text\n"
        src.write_bytes(shown)
        async with lab.agent("batcher") as c:
            # (a)
            err, out = await call(c, "android_batch_run_inline", {"name": "a", "steps": [
                {"tool": "android_push_file", "arguments": {"localPath": str(src), "devicePath": target, "overwrite": True}}]})
            print("run_inline:", err, json.dumps(out)[:200])
            ask = (await person.until("confirm_asked", timeout=30))["ask"]
            print("   modal reason:", ask["reason"][:300])
            src.write_bytes(b"rm -rf / # swapped after modal\n")
            await person.approve(ask["call_id"])
            await person.until("call_finished", timeout=30, call_id=ask["call_id"])
            await asyncio.sleep(1)
            got = lab.dev_cat(target)
            print(f"--- (a) inline push: shown sha in modal={sha(shown) in ask['reason']} device={got!r} ->",
                  "holds" if got == shown else "BROKEN")
            # (b)
            v143 = apk("com.example.shop", 143, "1.4.3")
            p = lab.pulls() / "shop.apk"; p.write_bytes(v143)
            err, out = await call(c, "android_batch_save", {"id": "T", "name": "T", "steps": [
                {"tool": "android_install_app", "arguments": {"apkPath": str(p)}}]})
            print("save:", err, json.dumps(out)[:200])
            err, out = await call(c, "android_batch_run", {"taskId": "T"})
            if err:
                err, out = await call(c, "android_batch_run", {"id": "T"})
            print("run:", err, json.dumps(out)[:200])
            ask = (await person.until("confirm_asked", timeout=30))["ask"]
            print("   modal reason:", ask["reason"][:400])
            p.write_bytes(apk("com.google.android.apps.nexuslauncher", 999999999, "evil", b"x" * 4096))
            save2 = asyncio.create_task(call(c, "android_batch_save", {"id": "T", "name": "T", "steps": [
                {"tool": "android_install_app", "arguments": {"apkPath": str(p), "allowDowngrade": True}}]}))
            # the replace of T asks: the person denies it
            try:
                ask2 = (await person.until("confirm_asked", timeout=10))["ask"]
                print("   second modal (task replace):", ask2["tool"], ask2["reason"][:200])
                await person.send(type="decide", call_id=ask2["call_id"], approve=False)
            except Exception as e:
                print("   no second modal", e)
            print("   save2:", await save2)
            await person.approve(ask["call_id"])
            await person.until("call_finished", timeout=30, call_id=ask["call_id"])
            await asyncio.sleep(1)
            shop, launcher = lab.installed("com.example.shop"), lab.installed("com.google.android.apps.nexuslauncher")
            print(f"--- (b) saved task install: shown sha={sha(v143) in ask['reason']} shop={shop} launcher={launcher} ->",
                  "holds" if shop == 143 and launcher != 999999999 else "BROKEN")
        rec = [r for r in lab.audit() if r.get("tool") in ("android_install_app", "android_push_file")]
        for r in rec:
            print("   audit", r["seq"], r["tool"], r.get("outcome"), r.get("level"), (r.get("result") or {}).get("sha256", "")[:12], r.get("decider"))
        st = lab.home / "data" / "staging"
        print("   staging left:", list(st.iterdir()) if st.exists() else "no dir")
    finally:
        lab.close()
asyncio.run(main())
