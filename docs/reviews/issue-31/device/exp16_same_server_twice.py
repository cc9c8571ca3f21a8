"""Attack 16: the same adb server given twice under two spellings (serve --adb 127.0.0.1:N
--adb localhost:N): the phone appears as P@127.0.0.1:N and P@localhost:N. A leases one; B
acts through the other (tap, and destructive call waiting when A leases)."""
import sys, json, time, os
sys.path.insert(0, "/work/attacks/device")
from lib import *

tmp = tempfile.mkdtemp(prefix="devatk16-")
parts = []
try:
    sim = Sim(tmp, "s", "--adbd", "127.0.0.1:0", "--device", DEMO); parts.append(sim)
    P = sim.info["adbd"][0]["addr"]
    adb = AdbServer(tmp, "a"); parts.append(adb); adb.connect(P)
    home = os.path.join(tmp, "home"); os.makedirs(home)
    serve = Serve(home, "--adb", adb.endpoint, "--adb", f"localhost:{adb.port}"); parts.append(serve)
    a = Http(serve, "agent-a"); b = Http(serve, "agent-b")
    devs = a.call("android_list_devices")[1]
    log("devices:", [d["id"] for d in devs["devices"]], devs.get("serverErrors"))
    ids = [d["id"] for d in devs["devices"]]
    if len(ids) >= 2:
        log("A lease", ids[0], a.call("android_lease_device", {"serial": ids[0]})[1].get("action"))
        for i in ids:
            err, sc = b.call("android_tap", {"x": 1, "y": 1, "serial": i})
            log(f"B tap {i}: {'refused' if err else 'RAN !!!'} {str(sc.get('error') or '')[:100]}")
finally:
    for p in reversed(parts):
        try: p.stop()
        except Exception as e: log(e)
