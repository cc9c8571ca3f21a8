"""Goal 2: the agent makes the anchor sink fail without touching config: it holds every session
rsyslogd's imtcp allows (MaxSessions, 200 by default) so the server's anchors are refused, makes
approved destructive calls, kill -9s its server, cuts those records, releases the sessions and
restarts. Root's verify --anchors is asked. Also shows whether the running server keeps one
connection (then it needs the restart to lose it)."""
import os
from lab import *

def hold(port, n, seconds):
    socks = []
    for _ in range(n):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=2))
        except OSError as e:
            print("connect failed at", len(socks), e); break
    time.sleep(seconds)
    return len(socks)

async def main():
    lab = Lab(); tmp = tmpdir()
    try:
        s = lab.server(tmp, "ex", config=VIA_CLIENT)
        async with s.client() as c:
            await reads(c, 2)
        stop(s); s.wait_for_anchor("stop")
        saved = lab.tamper(s, lambda t: t.state.read_text())
        # the agent's holder process (a fork running as the user) keeps 260 sessions open for 25 s
        holder = os.fork()
        if holder == 0:
            os.setgroups([]); os.setresgid(lab.pw.pw_gid, lab.pw.pw_gid, lab.pw.pw_gid); os.setresuid(lab.pw.pw_uid, lab.pw.pw_uid, lab.pw.pw_uid)
            hold(lab.rsyslog.port, 260, 25); os._exit(0)
        time.sleep(2)
        s2 = lab.server(tmp, "ex", config=VIA_CLIENT, home=s)
        async with s2.client(elicitation_callback=approve) as c:
            err, r = await call(c, "android_uninstall_app", NOTES); print("uninstall:", err, r)
            err, st = await call(c, "spock_get_status", {})
            print("status audit part:", json.dumps(st)[:0] + str({k: v for k, v in (st or {}).items() if 'audit' in k.lower() or 'anchor' in k.lower() or 'trail' in k.lower()})[:600])
            await asyncio.sleep(4)
            os.kill(s2.proc.pid, signal.SIGKILL)
        s2.proc.wait()
        print("anchors of run 2:", [short(l)[90:200] for l in anchors(lab, s2)][2:])
        print("records:", [(r["seq"], r["tool"], r["outcome"]) for r in recs(lab, s2)])
        lab.tamper(s2, lambda t: (t.write(t.lines()[:2]), t.state.write_text(saved)))
        os.waitpid(holder, 0)
        s3 = lab.server(tmp, "ex", config=VIA_CLIENT, home=s)
        async with s3.client() as c:
            await reads(c, 1)
        stop(s3); time.sleep(1)
        print("final records:", [(r["seq"], r["tool"], r["outcome"]) for r in recs(lab, s3)])
        show("after the exhausted-sink run was cut", lab, s3)
        print("rsyslogd err:", lab.rsyslog.err_path.read_text()[-300:])
    finally:
        lab.close()
asyncio.run(main())
