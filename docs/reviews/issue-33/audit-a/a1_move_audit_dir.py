"""Goal 1/4: move SPOCK_TUI_HOME (first try: the audit dir) and leave a symlink at the old path. The trail id is derived from
the audit dir's realpath, so every anchor written so far belongs to "another trail". The agent
then drops the approved destructive records (chain recomputed, state rewritten), restarts the
server (new id, new start anchor over the tampered head), and root's verify is asked."""
from lab import *

async def main():
    lab = Lab(); tmp = tmpdir()
    try:
        s = lab.server(tmp, "mv", config=VIA_CLIENT)
        async with s.client(elicitation_callback=approve) as c:
            await reads(c, 1)
            for _ in range(2):
                err, r = await call(c, "android_clear_app_data", NOTES); assert not err, r
            await reads(c, 1)
        stop(s); s.wait_for_anchor("stop")
        old_trail = s.trail
        show("honest", lab, s)

        def tamper(t: Trail):
            import os
            home = t.dir.parent.parent          # SPOCK_TUI_HOME
            os.rename(home, home.parent / "spock.moved")
            os.symlink("spock.moved", home)        # the same path, another realpath
            t2 = Trail(t.dir)
            t2.delete_seqs({2, 3})          # approved destructive calls gone, renumbered, rechained
            t2.state_to_head()
        lab.tamper(s, tamper)
        print("trail id before", old_trail, "after", s.trail)
        show("after move+delete, no restart", lab, s)
        # restart: new id, start anchor over the forged head
        s2 = lab.server(tmp, "mv", config=VIA_CLIENT, home=s)
        async with s2.client(elicitation_callback=approve) as c:
            await reads(c, 2)
        stop(s2); time.sleep(1)
        for l in anchors(lab, s2): print(short(l))
        print([ (r["seq"], r["tool"], r["outcome"]) for r in recs(lab, s2)])
        show("after move+delete+restart", lab, s2)
        # plain path variant: the admin passes the real dir? it resolves to the same.
    finally:
        lab.close()
asyncio.run(main())
