"""A7b: tamper the staged copy only AFTER the yes (during read-back / streaming), at several
delays, 40 MiB file. BROKEN if the device ends with bytes other than the approved ones or 'old'."""
import asyncio, os, threading
from lab import *

async def main():
    lab = Lab()
    try:
        person = await Person.attach(lab)
        size = 40 << 20
        async with lab.agent("pusher") as c:
            for i, delay in enumerate([0.0, 0.02, 0.05, 0.1, 0.2, 0.4, 0.8]):
                target = f"/sdcard/Download/late_{i}.bin"
                lab.dev_sh(f"echo old > {target}")
                src = lab.pulls() / f"late_{i}.bin"
                shown = bytes([65 + (j % 26) for j in range(4096)]) * (size // 4096)
                src.write_bytes(shown)
                task = asyncio.create_task(call(c, "android_push_file", {"localPath": str(src), "devicePath": target, "overwrite": True}))
                ask = (await person.until("confirm_asked", timeout=60))["ask"]
                st = lab.home / "data" / "staging"
                files = [p for p in st.iterdir()]
                await person.send(type="displayed", call_id=ask["call_id"])
                await asyncio.sleep(ARMING)
                await person.send(type="decide", call_id=ask["call_id"], approve=True)
                await asyncio.sleep(delay)
                t0 = time.monotonic()
                for p in files:
                    try:
                        with open(p, "r+b") as f:
                            f.seek(size - 4096); f.write(b"Z" * 4096)   # tail: read last
                    except Exception as e:
                        print("    tamper failed", e)
                err, out = await asyncio.wait_for(task, 120)
                got = lab.dev_cat(target)
                state = "approved" if got == shown else ("old" if got == b"old\n" else f"OTHER len={len(got)} tail={got[-4:]!r}")
                print(f"--- delay {delay}: err={err} device={state} -> {'holds' if state in ('approved','old') else 'BROKEN'}  {json.dumps(out)[:140] if err else ''}")
    finally:
        lab.close()
asyncio.run(main())
