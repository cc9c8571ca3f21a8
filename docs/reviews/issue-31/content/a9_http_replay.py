"""A9: HTTP 2025 session replays. In one Mcp-Session-Id: (1) two tools/call with the SAME JSON-RPC id,
A = push overwrite of approved bytes, B = push overwrite of other bytes to the same file; the person approves
only the modal whose SHA-256 matches A. (2) after an approved call finishes, the identical POST is replayed:
it must ask again. Evidence: device file and number of modals."""
import asyncio, httpx2
from lab import *

async def main():
    lab = Lab()
    try:
        print("sim sanity: touch works:", "pwned" in lab.dev_sh("touch /sdcard/Download/pwned; ls /sdcard/Download/"))
        person = await Person.attach(lab)
        d = lab.desc
        H = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
             "Authorization": f"Bearer {d['token']}"}
        async with httpx2.AsyncClient(timeout=60) as h:
            r = await h.post(d["http"], headers=H, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "replayer", "version": "1"}}})
            sid = r.headers.get("mcp-session-id")
            H2 = {**H, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"}
            await h.post(d["http"], headers=H2, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
            target = "/sdcard/Download/notes.txt"
            lab.dev_sh(f"echo old > {target}")
            A = lab.pulls() / "a.txt"; A.write_bytes(b"approved A\n")
            B = lab.pulls() / "b.txt"; B.write_bytes(b"unapproved B\n")
            def body(p):
                return {"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {"name": "android_push_file",
                        "arguments": {"localPath": str(p), "devicePath": target, "overwrite": True}}}
            ta = asyncio.create_task(h.post(d["http"], headers=H2, json=body(A)))
            tb = asyncio.create_task(h.post(d["http"], headers=H2, json=body(B)))
            asks = []
            for _ in range(2):
                try:
                    asks.append((await person.until("confirm_asked", timeout=10))["ask"])
                except Exception:
                    break
            print("modals:", [(a["call_id"], sha(b"approved A\n") in a["reason"], sha(b"unapproved B\n") in a["reason"]) for a in asks])
            for a in asks:
                if sha(b"approved A\n") in a["reason"]:
                    await person.approve(a["call_id"])
                else:
                    await person.send(type="decide", call_id=a["call_id"], approve=False)
            ra, rb = await asyncio.gather(ta, tb, return_exceptions=True)
            for nm, rr in (("A", ra), ("B", rb)):
                print(f"   reply {nm}:", getattr(rr, "status_code", rr), getattr(rr, "text", "")[:200].replace("\n", " "))
            got = lab.dev_cat(target)
            print(f"--- same JSON-RPC id twice: device={got!r} ->", "holds" if got == b"approved A\n" else "BROKEN")
            # (2) replay identical POST after approval
            n = len([m for m in person.log if m["type"] == "confirm_asked"])
            lab.dev_sh(f"echo old > {target}")
            tr = asyncio.create_task(h.post(d["http"], headers=H2, json=body(A)))
            try:
                a = (await person.until("confirm_asked", timeout=8))["ask"]
                await person.send(type="decide", call_id=a["call_id"], approve=False)
                asked = True
            except Exception:
                asked = False
            rr = await tr
            got = lab.dev_cat(target)
            print(f"--- replayed POST: asked again={asked} device={got!r} ->", "holds" if got == b"old\n" else "BROKEN")
        for r in lab.audit_for("android_push_file"):
            print("   audit", r["seq"], r.get("outcome"), r.get("arguments", {}).get("localPath", "").rsplit("/", 1)[-1], (r.get("result") or {}).get("sha256", "")[:12], r.get("decider"))
    finally:
        lab.close()
asyncio.run(main())
