"""Attack 2: a different phone takes the pinned name while a destructive call waits.
Agent B asks to uninstall com.example.notes on 127.0.0.1:P (phone X, "Pixel 7"). While the
modal is up, X goes away and phone Y ("Swapped Y", another serial) comes up on the same
address; adb reconnects it under the same serial. The person approves what the modal showed
(device 127.0.0.1:P, Pixel 7). Where does the uninstall run?"""
import sys, json, time, os, shutil
sys.path.insert(0, "/work/attacks/device")
from lib import *

tmp = tempfile.mkdtemp(prefix="devatk2-")
os.symlink("/work/main/assets/demo/screens", os.path.join(tmp, "screens"))
ytoml = os.path.join(tmp, "y.toml")
open(ytoml, "w").write(open(DEMO).read().replace('model = "Pixel 7"', 'model = "Swapped Y"', 1)
                       .replace("[device]\n", '[device]\nserial = "PHONE-Y"\n', 1))
port = free_port()
addr = f"127.0.0.1:{port}"
parts = []
try:
    x = Sim(tmp, "x", "--adbd", addr, "--device", DEMO); parts.append(x)
    adb = AdbServer(tmp, "a"); parts.append(adb)
    log(adb.connect(addr).strip())
    home = os.path.join(tmp, "home"); os.makedirs(home)
    serve = Serve(home, "--adb", adb.endpoint); parts.append(serve)
    person = Person(serve)
    b = Http(serve, "agent-b")
    log("B device info before:", json.dumps(b.call("android_get_device_info", {"serial": addr})[1])[:200])
    box = bg(b.call, "android_uninstall_app", {"packageName": "com.example.notes", "serial": addr})
    ask = person.ask(tool="android_uninstall_app")
    log("MODAL:", json.dumps({k: ask.get(k) for k in ("tool", "device", "device_model", "arguments", "client")}))
    person.send(type="displayed", call_id=ask["call_id"])
    # swap the phone
    x.stop(); parts.remove(x)
    time.sleep(1.0)
    y = Sim(tmp, "y", "--adbd", addr, "--device", ytoml); parts.append(y)
    log("adb connect again:", adb.connect(addr).strip()[:100])
    log("adb devices -l:", adb.adb("devices", "-l").strip().replace("\n", " | "))
    time.sleep(1.5)
    msgs = [m for m in person.all if m.get("call_id") == ask["call_id"] or m["type"] in ("withdrawn",)]
    log("person msgs so far:", [m["type"] for m in msgs])
    person.send(type="decide", call_id=ask["call_id"], approve=True)
    r = wait_box(box, 30)
    log("B result:", json.dumps(r)[:400])
    time.sleep(0.5)
    pk = adb.adb("-s", addr, "shell", "pm", "list", "packages")
    log("Y still has com.example.notes:", "com.example.notes" in pk)
    log("Y model:", adb.adb("-s", addr, "shell", "getprop", "ro.product.model").strip())
    rec = serve.audit_tool("android_uninstall_app")
    log("audit:", json.dumps(rec[-1])[:700] if rec else None)
    log("person tail:", [ (m["type"], m.get("why") or m.get("approved") or m.get("outcome")) for m in person.all if m.get("call_id") == ask["call_id"]])
finally:
    for p in reversed(parts):
        try: p.stop()
        except Exception as e: log(e)
