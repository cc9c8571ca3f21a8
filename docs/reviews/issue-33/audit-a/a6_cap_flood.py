"""Goal 1/2: the agent lowers [audit] max_total_mb to 1 between runs (config.toml is its own),
restarts, then floods denied destructive calls with ~16 KiB arguments (its own client declines)
so the server itself rotates, deletes the oldest files at the cap, copies the denied records to
audit.kept.jsonl and trims that file at ITS cap (256 KiB), pushing out the earlier APPROVED
destructive record. Root's verify --anchors is asked what happened to it."""
from lab import *

async def main():
    lab = Lab(); tmp = tmpdir()
    try:
        s = lab.server(tmp, "cap", config=VIA_CLIENT)
        async with s.client(elicitation_callback=approve) as c:
            await reads(c, 1)
            err, r = await call(c, "android_clear_app_data", NOTES); assert not err, r   # seq 2: approved
            await reads(c, 1)
        stop(s); s.wait_for_anchor("stop")
        conf = f'[audit]\nanchor = "tcp:127.0.0.1:{lab.rsyslog.port}"\nmax_total_mb = 1\n{VIA_CLIENT}'
        lab.as_user(lambda: (s.home / "config" / "config.toml").write_text(conf))
        s2 = lab.server(tmp, "cap", config=VIA_CLIENT, home=s)
        big = {"packageName": "com.x" + "a" * 16000}
        outcomes = {}
        async with s2.client(elicitation_callback=decline) as c:
            for i in range(int(os.environ.get("N", "150"))):
                err, r = await call(c, "android_uninstall_app", big)
                k = (r or {}).get("kind", "ok" if not err else "err"); outcomes[k] = outcomes.get(k, 0) + 1
        print("flood outcomes:", outcomes)
        stop(s2); s2.wait_for_anchor("stop", after=1)
        files = lab.tamper(s2, lambda t: sorted((p.name, p.stat().st_size) for p in t.dir.iterdir()))
        print("files:", files)
        kept = lab.tamper(s2, lambda t: [json.loads(l) for l in t.kept.read_text().splitlines()] if t.kept.exists() else [])
        print("kept seqs:", [k.get("seq") for k in kept][:5], "...", len(kept), "| seq 2 in kept:", any(k.get("seq") == 2 for k in kept))
        live = recs(lab, s2)
        print("live first seq:", live[0]["seq"] if live else None, "| any clear_app_data anywhere:",
              any(r.get("tool") == "android_clear_app_data" for r in live + kept))
        print("cap/kept anchors:", [short(l)[:200] for l in anchors(lab, s2) if 'reason="cap"' in l or "kept" in l][:4])
        show("after the flood", lab, s2)
    finally:
        lab.close()
import os
asyncio.run(main())
