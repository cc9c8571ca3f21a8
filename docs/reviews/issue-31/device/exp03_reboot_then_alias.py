"""Attack 3: the leased phone reboots (new boot id) during A's lease; afterwards the same
phone is reached under a second name (localhost:P, connected after the reboot). Does B get
through on either name?"""
import sys, json, time, os
sys.path.insert(0, "/work/attacks/device")
from lib import *

tmp = tempfile.mkdtemp(prefix="devatk3-")
port = free_port(); addr = f"127.0.0.1:{port}"; alias = f"localhost:{port}"
parts = []
try:
    x = Sim(tmp, "x", "--adbd", addr, "--device", DEMO); parts.append(x)
    adb = AdbServer(tmp, "a"); parts.append(adb)
    adb.connect(addr)
    home = os.path.join(tmp, "home"); os.makedirs(home)
    serve = Serve(home, "--adb", adb.endpoint); parts.append(serve)
    a = Http(serve, "agent-a"); b = Http(serve, "agent-b")
    bid = lambda s: adb.adb("-s", s, "shell", "cat", "/proc/sys/kernel/random/boot_id").strip()
    log("boot id before:", bid(addr))
    err, got = a.call("android_lease_device", {"serial": addr}); log("A lease:", err, got.get("device"))
    log("B tap before reboot:", b.call("android_tap", {"x": 5, "y": 5, "serial": addr})[0] and "refused")
    x.stop(); parts.remove(x); time.sleep(1)
    x2 = Sim(tmp, "x2", "--adbd", addr, "--device", DEMO); parts.append(x2)
    time.sleep(3)
    log("adb devices:", adb.adb("devices").strip().replace("\n", " | "))
    log("boot id after:", bid(addr))
    log("connect alias:", adb.connect(alias).strip())
    time.sleep(2)
    for s in (addr, alias):
        err, sc = b.call("android_tap", {"x": 5, "y": 5, "serial": s})
        log(f"B tap {s}: {'refused' if err else 'RAN !!!'} {(sc.get('error') or json.dumps(sc))[:160]}")
    err, st = b.call("spock_get_status")
    log("leases:", json.dumps(st.get("leases"))[:300])
    ok = [r for r in serve.audit_tool("android_tap") if r["client"].startswith("agent-b") and r["outcome"] == "ok"]
    log("audit B taps ok:", [r["device"] for r in ok])
finally:
    for p in reversed(parts):
        try: p.stop()
        except Exception as e: log(e)
