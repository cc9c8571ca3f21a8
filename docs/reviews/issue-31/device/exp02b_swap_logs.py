"""Attack 2b: as 2, with the swap made slow (3 s offline) so the server surely sees the phone
go offline and come back; then the same pending-call test, and the server's own log."""
import sys, json, time, os
sys.path.insert(0, "/work/attacks/device")
from lib import *

tmp = tempfile.mkdtemp(prefix="devatk2b-")
os.symlink("/work/main/assets/demo/screens", os.path.join(tmp, "screens"))
ytoml = os.path.join(tmp, "y.toml")
open(ytoml, "w").write(open(DEMO).read().replace('model = "Pixel 7"', 'model = "Swapped Y"', 1)
                       .replace("[device]\n", '[device]\nserial = "PHONE-Y"\n', 1))
port = free_port(); addr = f"127.0.0.1:{port}"
parts = []
try:
    x = Sim(tmp, "x", "--adbd", addr, "--device", DEMO); parts.append(x)
    adb = AdbServer(tmp, "a"); parts.append(adb); adb.connect(addr)
    home = os.path.join(tmp, "home"); os.makedirs(home)
    serve = Serve(home, "--adb", adb.endpoint); parts.append(serve)
    person = Person(serve)
    b = Http(serve, "agent-b")
    box = bg(b.call, "android_uninstall_app", {"packageName": "com.example.notes", "serial": addr})
    ask = person.ask(tool="android_uninstall_app")
    log("MODAL:", ask["device"], ask.get("device_model"))
    person.send(type="displayed", call_id=ask["call_id"])
    x.stop(); parts.remove(x)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 10 and "offline" not in adb.adb("devices"):
        time.sleep(0.2)
    log("adb saw:", adb.adb("devices").strip().replace("\n", " | "))
    time.sleep(3)
    log("person devices msgs:", [m["devices"] for m in person.all if m["type"] == "devices"][-2:])
    y = Sim(tmp, "y", "--adbd", addr, "--device", ytoml); parts.append(y)
    adb.adb("reconnect", "offline"); adb.connect(addr)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 15 and f"{addr}\tdevice" not in adb.adb("devices"):
        time.sleep(0.3)
    time.sleep(1.5)
    log("adb now:", adb.adb("devices", "-l").strip().replace("\n", " | "))
    log("person saw for call:", [(m["type"], m.get("why")) for m in person.all if m.get("call_id") == ask["call_id"]])
    person.send(type="decide", call_id=ask["call_id"], approve=True)
    log("B result:", json.dumps(wait_box(box, 30))[:300])
    log("Y (Swapped Y) still has notes:", "com.example.notes" in adb.adb("-s", addr, "shell", "pm", "list", "packages"))
    logs = b.call("spock_get_logs", {"limit": 300})[1]["entries"]
    for e in logs:
        if "device change" in e["message"] or "identity" in e["message"].lower():
            log("  log:", e["message"][:200])
finally:
    for p in reversed(parts):
        try: p.stop()
        except Exception as e: log(e)
