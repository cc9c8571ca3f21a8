"""A7: racing the private staging copy (an attacker with the same uid, e.g. a sandbox escape or a
process the agent started). While the call waits: (1) rewrite the staged file in place, same
length; (2) for a 40 MiB push, keep rewriting the staged file in a loop from the approval on
(during the read-back/stream); (3) swap the staging directory for a symlink."""
import asyncio, os, threading
from lab import *

async def run_case(lab, person, c, size, mode):
    target = f"/sdcard/Download/st_{mode}.bin"
    lab.dev_sh(f"echo old > {target}")
    src = lab.pulls() / f"st_{mode}.bin"
    shown = bytes([65 + (i % 26) for i in range(size)])
    src.write_bytes(shown)
    task = asyncio.create_task(call(c, "android_push_file", {"localPath": str(src), "devicePath": target, "overwrite": True}))
    ask = (await person.until("confirm_asked", timeout=60))["ask"]
    st = lab.home / "data" / "staging"
    files = [p for p in st.rglob("*") if p.is_file()]
    print(f"   staging: dir mode={oct(st.stat().st_mode & 0o777)} files={[(p.name, oct(p.stat().st_mode & 0o777), p.stat().st_size) for p in files]}")
    stop = threading.Event()
    evil = b"Z" * size
    if mode == "inplace":
        for p in files:
            with open(p, "r+b") as f: f.write(evil)
    elif mode == "loop":
        def loop():
            n = 0
            while not stop.is_set() and n < 2000:
                for p in st.rglob("*"):
                    try:
                        if p.is_file():
                            with open(p, "r+b") as f: f.write(evil)
                    except Exception: pass
                n += 1
        t = threading.Thread(target=loop); t.start()
    elif mode == "dirswap":
        import shutil
        alt = lab.tmp / "alt"; alt.mkdir()
        for p in files:
            (alt / p.relative_to(st)).parent.mkdir(parents=True, exist_ok=True)
            (alt / p.relative_to(st)).write_bytes(evil)
        os.rename(st, lab.tmp / "staging.orig"); os.symlink(alt, st)
    await person.approve(ask["call_id"])
    err, out = await asyncio.wait_for(task, 120)
    stop.set()
    got = lab.dev_cat(target)
    state = "approved bytes" if got == shown else ("old" if got == b"old\n" else f"OTHER bytes ({got[:8]!r}.. len {len(got)})")
    print(f"--- staging {mode}: err={err} {json.dumps(out)[:220]}\n    device has: {state} ->", "holds" if got != shown and got == b"old\n" or got == shown else "BROKEN")
    if mode == "dirswap":
        os.unlink(st); os.rename(lab.tmp / "staging.orig", st)

async def main():
    lab = Lab()
    try:
        person = await Person.attach(lab)
        async with lab.agent("pusher") as c:
            await run_case(lab, person, c, 4096, "inplace")
            await run_case(lab, person, c, 40 << 20, "loop")
            await run_case(lab, person, c, 4096, "dirswap")
        for r in lab.audit_for("android_push_file"):
            print("   audit", r["seq"], r.get("outcome"), (r.get("result") or {}).get("sha256", "")[:12], (r.get("error") or "")[:150])
    finally:
        lab.close()
asyncio.run(main())
