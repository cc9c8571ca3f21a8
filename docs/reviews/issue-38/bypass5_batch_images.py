"""BYPASS 5: Inspect OFF on A. A batch step with returnScreen on A saves A's screenshot as a run
image; android_batch_history_export then hands the JPEG back as a base64 ZIP. (Runs from before
the revoke are also still exportable: historical screenshots of A stay readable.) Self-contained."""
import base64, io, zipfile
from freshlab import *
async def main():
    lab = Lab()
    try:
        A = lab.A
        async with Client(lab.inst.relay_params(), mode="legacy") as c:
            idA, idB = await identities(c, lab.A, lab.B)
            r = await c.call_tool("android_batch_run_inline", {"name": "before", "steps": [{"tool": "android_take_screenshot", "arguments": {"serial": A}}]})
            before = r.structured_content["runId"]; await anyio.sleep(2)
            lab.write_tree({idA: {"inspect": False}})
            await until_refused(c, "android_take_screenshot", {"serial": A})
            print("Inspect off on A; screenshot refused")
            r = await c.call_tool("android_batch_run_inline", {"name": "after", "steps": [
                {"tool": "android_launch_app", "arguments": {"serial": A, "packageName": NOTES, "returnScreen": "screenshot"}},
                {"tool": "android_press_key", "arguments": {"serial": A, "key": "BACK", "returnScreen": "both"}}]})
            after = r.structured_content["runId"]; await anyio.sleep(3)
            for rid in (after, before):
                h = (await c.call_tool("android_batch_history_get", {"runId": rid})).structured_content
                print(rid, "state", h["state"], [(s["tool"], s["outcome"], s.get("images")) for s in h["steps"]])
                ex = await c.call_tool("android_batch_history_export", {"runId": rid})
                if ex.is_error:
                    print("  export refused:", short(ex.structured_content, 200)); continue
                z = zipfile.ZipFile(io.BytesIO(base64.b64decode(ex.structured_content["zipBase64"])))
                for n in z.namelist():
                    data = z.read(n)
                    kind = "JPEG" if data[:2] == bytes([0xff, 0xd8]) else "PNG" if data[:4] == bytes([0x89, 0x50, 0x4e, 0x47]) else "text"
                    print(f"  export contains {n} ({len(data)} bytes, {kind})")
    finally:
        lab.close()
anyio.run(main)
