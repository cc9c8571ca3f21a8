"""Goal 2: the agent fills the filesystem the trail lives on (here a 4 MiB tmpfs mounted as the
user's data dir; on a real machine the user's /home partition), then makes an approved
destructive call. Did it run (package list), is it on record, what does the server say, and
what does root's verify --anchors say afterwards (junk removed, server restarted)?"""
import os
from lab import *

async def main():
    lab = Lab(); tmp = tmpdir()
    mnt = None
    try:
        user_home, spock = lab.new_home("full")
        data = spock / "data"
        lab.as_user(lambda: data.mkdir(mode=0o700))
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size=4m,uid={lab.pw.pw_uid},gid={lab.pw.pw_gid},mode=0700", "tmpfs", str(data)], check=True)
        mnt = data
        conf = f'[audit]\nanchor = "tcp:127.0.0.1:{lab.rsyslog.port}"\n{VIA_CLIENT}'
        lab.as_user(lambda: (spock / "config" / "config.toml").write_text(conf))
        from conftest import start_instance
        from audit_tamper import UserServer
        inst = start_instance(tmp, "--demo", home=spock, wrap=tuple(lab.as_user_argv(user_home, spock)), exe=lab.exe)
        s = UserServer(lab, inst, user_home)
        async with s.client(elicitation_callback=approve) as c:
            await reads(c, 2)
            def fill():
                fd = os.open(data / "junk", os.O_WRONLY | os.O_CREAT, 0o600)
                try:
                    while True: os.write(fd, b"\0" * 512)
                except OSError as e:
                    return str(e)
                finally:
                    os.close(fd)
            print("fill:", lab.as_user(fill))
            err, r = await call(c, "android_uninstall_app", NOTES); print("uninstall:", err, r)
            err, r = await call(c, "android_list_packages", {})
            print("notes still installed:", "com.example.notes" in json.dumps(r), "| list call error:", err, json.dumps(r)[:200])
            for i in range(12):
                try:
                    err, r = await asyncio.wait_for(call(c, "android_clear_app_data", {"packageName": "com.example.shop"}), 15)
                    print("clear", i, err, json.dumps(r)[:160])
                except Exception as e:
                    print("clear", i, "raised", type(e).__name__, e)
        def summary(t):
            out = []
            for l in t.lines():
                try:
                    r = json.loads(l); out.append((r["seq"], r["tool"], r["outcome"]))
                except ValueError:
                    out.append(("TORN", len(l), l[:40]))
            return out
        print("records:", lab.tamper(s, summary))
        print("server log:", [l[27:220] for l in open(s.stderr_path).read().splitlines() if "audit" in l.lower() or "WARN" in l or "ERROR" in l][-8:])
        print("anchors:", [short(l)[90:220] for l in anchors(lab, s)])
        if os.environ.get("MODE", "kill") == "kill":
            os.kill(s.proc.pid, signal.SIGKILL); s.proc.wait()     # the agent kills its own server
            lab.as_user(lambda: os.unlink(data / "junk"))
            print("records after kill -9:", lab.tamper(s, summary))
            s2 = UserServer(lab, start_instance(tmp, "--demo", home=spock, wrap=tuple(lab.as_user_argv(user_home, spock)), exe=lab.exe), user_home)
            async with s2.client() as c:
                await reads(c, 1)
            stop(s2); s2.wait_for_anchor("stop")
            print("records after restart:", lab.tamper(s2, summary))
            print("anchors:", [short(l)[60:100] + short(l)[-40:] for l in anchors(lab, s2)])
            show("MODE=kill: disk full, 12 approved clears, kill -9, junk removed, restarted", lab, s2)
        else:
            lab.as_user(lambda: os.unlink(data / "junk"))
            stop(s); time.sleep(1)
            print("records after stop:", lab.tamper(s, summary))
            show("MODE=stop: junk removed, stopped", lab, s)
    finally:
        for srv in ("s", "s2"):
            srv = locals().get(srv)
            if srv is not None and srv.proc.poll() is None: srv.proc.kill(); srv.proc.wait()
        if mnt: subprocess.run(["umount", "-l", str(mnt)])
        lab.close()
asyncio.run(main())
