"""Goal 2: a run with the anchor turned off (or pointed at the agent's own sink) by the agent,
who owns config.toml. Destructive calls approved in that run; afterwards the agent cuts that
run's records off the end, rewrites the state file, restores the config, restarts. Root's
verify --anchors is asked. MODE=off | fake (a TCP listener of the agent's that accepts anything)."""
import os, threading
from lab import *
MODE = os.environ.get("MODE", "off")

def fake_sink():
    so = socket.socket(); so.bind(("127.0.0.1", 0)); so.listen(16)
    def loop():
        while True:
            c, _ = so.accept()
            threading.Thread(target=lambda c=c: [None for _ in iter(lambda: c.recv(65536), b"")], daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
    return so.getsockname()[1]

async def main():
    lab = Lab(); tmp = tmpdir()
    try:
        s = lab.server(tmp, "off", config=VIA_CLIENT)
        async with s.client(elicitation_callback=approve) as c:
            await reads(c, 3)
        stop(s); s.wait_for_anchor("stop")
        show("run 1 honest", lab, s)
        real_conf = lab.tamper(s, lambda t: (t.dir.parent.parent / "config" / "config.toml").read_text())
        anchor = '"off"' if MODE == "off" else f'"tcp:127.0.0.1:{fake_sink()}"'
        bad = real_conf.replace(f'"tcp:127.0.0.1:{lab.rsyslog.port}"', anchor)
        lab.as_user(lambda: (s.home / "config" / "config.toml").write_text(bad))
        saved_state = lab.tamper(s, lambda t: t.state.read_text())
        # run 2: the destructive calls the agent wants gone
        s2 = lab.server(tmp, "off", config=VIA_CLIENT, home=s)
        async with s2.client(elicitation_callback=approve) as c:
            for _ in range(2):
                err, r = await call(c, "android_clear_app_data", NOTES); assert not err, r
            err, r = await call(c, "android_uninstall_app", NOTES); print("uninstall:", err, r)
        stop(s2); time.sleep(1)
        print("run 2 records:", [(r["seq"], r["tool"], r["outcome"]) for r in recs(lab, s2)])
        print("anchors after run 2:", [short(l) for l in anchors(lab, s2)][-2:])
        # the agent: cut run 2's records, state back, config back
        def cut(t: Trail):
            t.write(t.lines()[:3]); t.state.write_text(saved_state)
            (t.dir.parent.parent / "config" / "config.toml").write_text(real_conf)
        lab.tamper(s2, cut)
        s3 = lab.server(tmp, "off", config=VIA_CLIENT, home=s)
        async with s3.client(elicitation_callback=approve) as c:
            await reads(c, 1)
        stop(s3); s3.wait_for_anchor("stop", after=1)
        print("final records:", [(r["seq"], r["tool"], r["outcome"]) for r in recs(lab, s3)])
        for l in anchors(lab, s3): print(short(l))
        show(f"MODE={MODE} after cutting run 2", lab, s3)
    finally:
        lab.close()
asyncio.run(main())
