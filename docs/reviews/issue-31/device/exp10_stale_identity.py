"""Attack 10: identity read once per connection goes stale when the phone behind a name
restarts quickly (adb keeps its transport). Then:
  (1) a NEW destructive call's modal still names the old model;
  (2) A leases the name; the same phone reached under a second name (connected after the
      restart, so its identity is read fresh) is not held: B acts there."""
import sys, json, time, os
sys.path.insert(0, "/work/attacks/device")
from lib import *

tmp = tempfile.mkdtemp(prefix="devatk10-")
os.symlink("/work/main/assets/demo/screens", os.path.join(tmp, "screens"))
ytoml = os.path.join(tmp, "y.toml")
open(ytoml, "w").write(open(DEMO).read().replace('model = "Pixel 7"', 'model = "Swapped Y"', 1))
port = free_port(); addr = f"127.0.0.1:{port}"; alias = f"localhost:{port}"
parts = []
try:
    adb = AdbServer(tmp, "a"); parts.append(adb)
    x = Sim(tmp, "x", "--adbd", addr, "--device", DEMO); parts.append(x)
    adb.connect(addr)
    home = os.path.join(tmp, "home"); os.makedirs(home)
    serve = Serve(home, "--adb", adb.endpoint); parts.append(serve)
    person = Person(serve)
    a = Http(serve, "agent-a"); b = Http(serve, "agent-b")
    bid = lambda s: adb.adb("-s", s, "shell", "cat", "/proc/sys/kernel/random/boot_id").strip()
    log("boot id X:", bid(addr))
    # quick restart: same phone file but model changed so the modal's staleness is visible
    x.stop(); parts.remove(x); time.sleep(0.3)
    y = Sim(tmp, "y", "--adbd", addr, "--device", DEMO if "same" in sys.argv else ytoml); parts.append(y)
    log("connect:", adb.connect(addr).strip())
    time.sleep(1)
    log("adb devices -l:", adb.adb("devices", "-l").strip().replace("\n", " | "))
    log("boot id now:", bid(addr), "model now:", adb.adb("-s", addr, "shell", "getprop", "ro.product.model").strip())
    # (1) modal
    box = bg(b.call, "android_clear_app_data", {"packageName": "com.example.shop", "serial": addr})
    ask = person.ask(tool="android_clear_app_data")
    log("(1) MODAL device:", ask["device"], "model:", ask.get("device_model"))
    person.deny(ask["call_id"]); wait_box(box)
    log("(1) list_devices model:", [d.get("model") for d in b.call("android_list_devices")[1]["devices"]])
    # (2) lease + alias
    log("(2) A lease:", a.call("android_lease_device", {"serial": addr})[1].get("action"))
    log("(2) connect alias:", adb.connect(alias).strip()); time.sleep(1.5)
    for s in (addr, alias):
        err, sc = b.call("android_tap", {"x": 7, "y": 7, "serial": s})
        log(f"(2) B tap {s}: {'refused' if err else 'RAN !!!'} {str(sc.get('error') or json.dumps(sc))[:150]}")
    for r in serve.audit():
        if r["tool"] in ("android_tap",):
            log("  audit", r["seq"], r["client"], r.get("device"), r["outcome"])
finally:
    for p in reversed(parts):
        try: p.stop()
        except Exception as e: log(e)
