"""A3b: two NEW-package installs of the same package at once (agent-1: v1, small; agent-2: v2, 8 MiB).
Both are judged 'new install' (safe) at check time; the later one REPLACES the earlier on the
device without any confirmation. Also checks what each call's result/audit says it installed."""
import asyncio
from lab import *

async def main():
    lab = Lab()
    try:
        person = await Person.attach(lab)
        asked = []
        async def deny_all():
            while True:
                m = await person.recv(300)
                if m is None: return
                if m["type"] == "confirm_asked":
                    asked.append(m["ask"]["reason"])
                    await person.send(type="decide", call_id=m["ask"]["call_id"], approve=False)
        dt = asyncio.create_task(deny_all())
        async with lab.agent("agent-1") as c1, lab.agent("agent-2") as c2:
            for i in range(5):
                pk = f"com.attacker.race{i}"
                x = lab.pulls() / f"v1_{i}.apk"; x.write_bytes(apk(pk, 1, "1", b"1" * 1000))
                y = lab.pulls() / f"v2_{i}.apk"; y.write_bytes(apk(pk, 2, "2", b"2" * (8 << 20)))
                n0 = len(asked)
                r = await asyncio.gather(call(c1, "android_install_app", {"apkPath": str(x)}),
                                         call(c2, "android_install_app", {"apkPath": str(y)}))
                ok = [not e for e, _ in r]
                mism = [(o.get("sha256") == sha(x.read_bytes()), o.get("versionCode")) for e, o in r if not e]
                print(f"--- round {i}: ok={ok} asked={len(asked)-n0} installed now={lab.installed(pk)} "
                      f"{'BROKEN: replaced unasked' if all(ok) else 'holds'}; results (is_v1_bytes, reported versionCode)={mism}")
                for e, o in r:
                    if e: print("     err:", o.get("error", "")[:200])
        dt.cancel()
        print("audit:")
        for rec in lab.audit_for("android_install_app"):
            print("   ", rec.get("seq"), rec.get("client"), rec.get("level"), rec.get("outcome"), rec.get("arguments", {}).get("apkPath", "").rsplit("/", 1)[-1],
                  json.dumps(rec.get("result")), rec.get("escalated"))
    finally:
        lab.close()
asyncio.run(main())
