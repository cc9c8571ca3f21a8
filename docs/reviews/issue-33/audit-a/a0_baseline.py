"""Baseline: an honest approved trail; shows records, anchors and verify (not an attack)."""
from lab import *

async def main():
    lab = Lab(); tmp = tmpdir()
    try:
        s = lab.server(tmp, "base", config=VIA_CLIENT)
        async with s.client(elicitation_callback=approve) as c:
            await reads(c, 1)
            err, r = await call(c, "android_clear_app_data", NOTES)
            print("clear:", err, r)
            await reads(c, 1)
        stop(s); s.wait_for_anchor("stop")
        for r in recs(lab, s): print(json.dumps(r)[:600])
        print(lab.tamper(s, lambda t: t.state.read_text()))
        for l in anchors(lab, s): print(short(l))
        show("honest", lab, s)
        print(open(s.stderr_path).read()[-1500:])
    finally:
        lab.close()
asyncio.run(main())
