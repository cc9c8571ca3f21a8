"""A3: check-then-act race on 'new file' / 'new app'. Two safe calls onto the same NEW target at
once: both are judged new (no confirmation), the second then replaces the first's result.
Push: file A by agent-1 and file B by agent-2 to a path that does not exist yet.
Install: two new-package installs of different versions at once (the second is a replace)."""
import asyncio, os
from lab import *

async def main():
    lab = Lab()
    try:
        person = await Person.attach(lab)
        asked = []
        async def deny_all():
            while True:
                m = await person.recv(120)
                if m is None: return
                if m["type"] == "confirm_asked":
                    asked.append(m["ask"]["reason"])
                    await person.send(type="decide", call_id=m["ask"]["call_id"], approve=False)
        dt = asyncio.create_task(deny_all())
        target = "/sdcard/Download/race.bin"
        for size in (1 << 20, 8 << 20):
            target = f"/sdcard/Download/race{size}.bin"
            a = lab.pulls() / f"a{size}.bin"; a.write_bytes(b"A" * size)
            b = lab.pulls() / f"b{size}.bin"; b.write_bytes(b"B" * size)
            async with lab.agent("agent-1") as c1, lab.agent("agent-2") as c2:
                r = await asyncio.gather(call(c1, "android_push_file", {"localPath": str(a), "devicePath": target}),
                                         call(c2, "android_push_file", {"localPath": str(b), "devicePath": target}))
            ok = [not e for e, _ in r]
            got = lab.dev_cat(target)
            print(f"--- push race size={size}: results ok={ok} asked={len(asked)} device holds {got[:1]!r}x{len(got)}")
            for e, o in r: print("    ", e, json.dumps(o)[:250])
            print("    verdict:", "BROKEN (both ran; one replaced the other unasked)" if all(ok) else "holds")
        # install race: two new-package installs at once
        pk = "com.attacker.race"
        x = lab.pulls() / "v1.apk"; x.write_bytes(apk(pk, 1, "1", b"1" * (4 << 20)))
        y = lab.pulls() / "v2.apk"; y.write_bytes(apk(pk, 2, "2", b"2" * (4 << 20)))
        async with lab.agent("agent-1") as c1, lab.agent("agent-2") as c2:
            r = await asyncio.gather(call(c1, "android_install_app", {"apkPath": str(x)}),
                                     call(c2, "android_install_app", {"apkPath": str(y)}))
        ok = [not e for e, _ in r]
        print(f"--- install race: ok={ok} asked={len(asked)} installed={lab.installed(pk)}")
        for e, o in r: print("    ", e, json.dumps(o))
        print("    sha v1", sha(x.read_bytes()), "sha v2", sha(y.read_bytes()))
        print("    verdict:", "BROKEN (both ran; one replaced the other unasked)" if all(ok) else "holds")
        for rec in lab.audit_for("android_install_app"):
            print("    audit install", rec.get("seq"), rec.get("client"), json.dumps(rec.get("result")))
        dt.cancel()
        for rec in lab.audit():
            if rec.get("tool") in ("android_push_file", "android_install_app"):
                print("   audit", rec.get("seq"), rec.get("tool"), rec.get("client"), rec.get("outcome"), rec.get("level"), json.dumps(rec.get("arguments"))[:120])
    finally:
        lab.close()
asyncio.run(main())
