"""A2: overwrite an existing device file WITHOUT the confirmation, by naming the destination
indirectly (a directory that keeps the file name, trailing slash, dot segments, // , /storage alias).
The person denies every confirmation. BROKEN if the victim file's bytes change."""
import asyncio, sys
from lab import *

VICTIM = "/sdcard/Download/notes.txt"
ORIG = b"precious original\n"

async def one(lab, person, asked, dest, srcname="notes.txt"):
    lab.dev_sh(f"mkdir -p /sdcard/Download; echo precious original > {VICTIM}")
    assert lab.dev_cat(VICTIM) == ORIG, lab.dev_cat(VICTIM)
    src = lab.pulls() / srcname
    src.write_bytes(b"ATTACKER BYTES\n")
    n0 = len(asked)
    async with lab.agent("pusher") as c:
        err, out = await asyncio.wait_for(call(c, "android_push_file", {"localPath": str(src), "devicePath": dest}), 60)
    got = lab.dev_cat(VICTIM)
    broken = got != ORIG and len(asked) == n0
    print(f"--- dest={dest!r}: {'BROKEN' if broken else 'holds'}  asked={len(asked)-n0} victim now={got!r}")
    print(f"    result err={err} {json.dumps(out)[:300]}")

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
        print("sim realpath of /sdcard:", lab.dev_sh("realpath /sdcard; ls -la /sdcard/ /storage/ 2>&1 | head; readlink -f /sdcard/Download/notes.txt"))
        for d in ["/sdcard/Download", "/sdcard/Download/", "/sdcard/Download/.", "/sdcard//Download/notes.txt",
                  "/sdcard/Download/./notes.txt", "/sdcard/Download/../Download/notes.txt",
                  "/storage/emulated/0/Download/notes.txt", "/storage/self/primary/Download/notes.txt",
                  "/sdcard/Download/notes.txt/", "/sdcard/./Download"]:
            try:
                await one(lab, person, asked, d)
            except Exception as e:
                print("---", d, "exception", repr(e))
        dt.cancel()
    finally:
        lab.close()
asyncio.run(main())
