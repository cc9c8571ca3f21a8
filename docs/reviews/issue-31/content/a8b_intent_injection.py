"""A8b: shell injection through a SAFE intent/deep link (no escalation words): if a value reaches the
device shell unquoted, `touch /sdcard/Download/pwned` runs with no confirmation."""
import asyncio
from lab import *
M = "/sdcard/Download/pwned"
PAY = ["x'; touch %s; echo '" % M, "x\"; touch %s; echo \"" % M, "x`touch %s`" % M, "x$(touch %s)" % M,
       "x\ntouch %s\n" % M, "x;touch %s" % M, "x' ; touch %s #" % M, "x\\'; touch %s; echo \\'" % M]
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
                    asked.append(m); await person.send(type="decide", call_id=m["ask"]["call_id"], approve=False)
        dt = asyncio.create_task(deny_all())
        async with lab.agent("intents") as c:
            for i, s in enumerate(PAY):
                for where, tool, args in [
                    ("extra value", "android_open_intent", {"action": "android.intent.action.VIEW", "packageName": "com.example.shop", "extras": {"k": {"type": "string", "value": s}}}),
                    ("extra key", "android_open_intent", {"action": "android.intent.action.VIEW", "packageName": "com.example.shop", "extras": {s: {"type": "string", "value": "v"}}}),
                    ("uri extra", "android_open_intent", {"action": "android.intent.action.VIEW", "packageName": "com.example.shop", "extras": {"k": {"type": "uri", "value": s}}}),
                    ("data", "android_open_intent", {"action": "android.intent.action.VIEW", "data": "shop://" + s}),
                    ("className", "android_open_intent", {"action": "android.intent.action.VIEW", "packageName": "com.example.shop", "className": s}),
                    ("deep link", "android_open_deep_link", {"uri": "shop://x/" + s}),
                ]:
                    lab.dev_sh(f"rm -f {M}")
                    n0 = len(asked)
                    err, out = await asyncio.wait_for(call(c, tool, args), 30)
                    hit = "pwned" in lab.dev_sh("ls /sdcard/Download/")
                    print(f"--- payload {i} in {where}: asked={len(asked)-n0} marker={hit} -> {'BROKEN' if hit and len(asked)==n0 else 'holds'}  {json.dumps(out)[:110]}")
        dt.cancel()
    finally:
        lab.close()
asyncio.run(main())
