"""Goal 2: kill -9 the server (the agent may: same user) after the person approved a destructive
call and the command reached the device, before the answer (and so the record) came back.
The device is a separate `spock-tui sim` (adb server) with every command delayed DELAY ms, as a
slow phone would be. Afterwards: is the app gone on the device, is there any record, and what
does root's verify --anchors say after a restart?"""
import os
from lab import *
from conftest import start_instance
from audit_tamper import UserServer
DELAY = int(os.environ.get("DELAY", "2000"))

def user_server(lab, tmp, name, adb, home=None):
    if home is None:
        user_home, spock = lab.new_home(name)
        conf = f'[audit]\nanchor = "tcp:127.0.0.1:{lab.rsyslog.port}"\n{VIA_CLIENT}'
        lab.as_user(lambda: (spock / "config" / "config.toml").write_text(conf))
    else:
        user_home, spock = home.user_home, home.home
    inst = start_instance(tmp, "--adb", adb, home=spock, wrap=tuple(lab.as_user_argv(user_home, spock)), exe=lab.exe)
    return UserServer(lab, inst, user_home)

async def packages(s):
    async with s.client() as c:
        err, r = await call(c, "android_list_packages", {})
        return json.dumps(r)

async def main():
    lab = Lab(); tmp = tmpdir()
    sim = subprocess.Popen([lab.exe, "sim", "--adb-server", "127.0.0.1:0", "--fault", f"delay={DELAY}"],
                           stdout=subprocess.PIPE, stderr=open(tmp / "sim.err", "w"), text=True)
    try:
        adb = json.loads(sim.stdout.readline())["adb_server"]
        s = user_server(lab, tmp, "kill", adb)
        print("notes installed before:", "com.example.notes" in await packages(s))
        killed = {}
        async def approve_then_kill(ctx, params):
            async def later():
                await asyncio.sleep(float(os.environ.get("KILL_AFTER", DELAY / 2000)))
                os.kill(s.proc.pid, signal.SIGKILL); killed["t"] = time.monotonic()
            asyncio.get_running_loop().create_task(later())
            return types.ElicitResult(action="accept", content={"approve": True})
        try:
            async with s.client(elicitation_callback=approve_then_kill) as c:
                r = await asyncio.wait_for(call(c, "android_uninstall_app", NOTES), 20)
                print("uninstall answered:", r)
        except BaseException as e:
            print("client saw:", type(e).__name__)
        if s.proc.poll() is None:
            os.kill(s.proc.pid, signal.SIGKILL)
        s.proc.wait()
        print("server exit:", s.proc.returncode, "killed:", bool(killed))
        print("records now:", [(r["seq"], r["tool"], r["outcome"]) for r in recs(lab, s)])
        time.sleep(DELAY / 1000 + 1)
        s2 = user_server(lab, tmp, "kill", adb, home=s)
        print("notes installed after:", "com.example.notes" in await packages(s2))
        stop(s2); s2.wait_for_anchor("stop")
        print("records after restart:", [(r["seq"], r["tool"], r["outcome"]) for r in recs(lab, s2)])
        for l in anchors(lab, s2): print(short(l))
        show("after kill -9 mid-call", lab, s2)
    finally:
        sim.terminate(); sim.wait()
        lab.close()
asyncio.run(main())
