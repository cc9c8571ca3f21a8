"""Attack 9: MCP 2026-07-28 approval through the client ([confirm] via_client = true).
The call is answered input_required; before the retry (the 'person' at the client says yes
to exactly what the form showed) the world changes:
  A. another phone takes the same address (name unchanged, phone different)
  B. another client leases the phone
  C. no serial: the only phone leaves and another (other name) becomes the only one.
Does the retry run, and where?"""
import sys, json, time, os
sys.path.insert(0, "/work/attacks/device")
from lib import *

tmp = tempfile.mkdtemp(prefix="devatk9-")
os.symlink("/work/main/assets/demo/screens", os.path.join(tmp, "screens"))
ytoml = os.path.join(tmp, "y.toml")
open(ytoml, "w").write(open(DEMO).read().replace('model = "Pixel 7"', 'model = "Swapped Y"', 1)
                       .replace("[device]\n", '[device]\nserial = "PHONE-Y"\n', 1))
YES = {"spock_approval": {"action": "accept", "content": {"approve": True}}}

def ask(s, args):
    m = s.rpc("tools/call", {"name": "android_uninstall_app", "arguments": args}, name="android_uninstall_app")
    r = m["result"]
    msg = r["inputRequests"]["spock_approval"]["params"]["message"]
    dev = [l for l in msg.splitlines() if l.startswith("Device:")][0]
    return r["requestState"], dev

def retry(s, args, state):
    m = s.rpc("tools/call", {"name": "android_uninstall_app", "arguments": args, "inputResponses": YES, "requestState": state}, name="android_uninstall_app")
    return json.dumps(m.get("result") or m.get("error"))[:260]

parts = []
try:
    adb = AdbServer(tmp, "a"); parts.append(adb)
    home = os.path.join(tmp, "home"); os.makedirs(home)
    # --- A: swap phone behind same address
    port = free_port(); addr = f"127.0.0.1:{port}"
    x = Sim(tmp, "x", "--adbd", addr, "--device", DEMO); parts.append(x)
    adb.connect(addr)
    serve = Serve(home, "--adb", adb.endpoint, config="[confirm]\nvia_client = true\n"); parts.append(serve)
    s = Stateless(serve, "agent-s", "3.0", caps={"elicitation": {"form": {}}})
    args = {"packageName": "com.example.notes", "serial": addr}
    st, shown = ask(s, args); log("[A] form showed:", shown)
    x.stop(); parts.remove(x); time.sleep(1)
    y = Sim(tmp, "y", "--adbd", addr, "--device", ytoml); parts.append(y)
    adb.connect(addr); time.sleep(1.5)
    log("[A] now at address:", adb.adb("-s", addr, "shell", "getprop", "ro.product.model").strip())
    log("[A] retry:", retry(s, args, st))
    log("[A] Y still has notes:", "com.example.notes" in adb.adb("-s", addr, "shell", "pm", "list", "packages"))
    # --- B: lease by another client between ask and retry (phone Y now)
    args = {"packageName": "com.example.shop", "serial": addr}
    st, shown = ask(s, args); log("[B] form showed:", shown)
    a = Http(serve, "agent-a"); log("[B] A lease:", a.call("android_lease_device", {"serial": addr})[1].get("action"))
    log("[B] retry:", retry(s, args, st))
    log("[B] Y still has shop:", "com.example.shop" in adb.adb("-s", addr, "shell", "pm", "list", "packages"))
    a.call("android_lease_device", {"serial": addr, "release": True})
    # --- C: no serial; the only phone leaves, another becomes the only one
    port2 = free_port(); addr2 = f"127.0.0.1:{port2}"
    args = {"packageName": "com.example.shop"}
    st, shown = ask(s, args); log("[C] form showed:", shown)
    z = Sim(tmp, "z", "--adbd", addr2, "--device", DEMO); parts.append(z)
    adb.adb("disconnect", addr); adb.connect(addr2); time.sleep(1.5)
    log("[C] adb devices:", adb.adb("devices").strip().replace("\n", " | "))
    log("[C] retry:", retry(s, args, st))
    log("[C] Z still has shop:", "com.example.shop" in adb.adb("-s", addr2, "shell", "pm", "list", "packages"))
    time.sleep(0.5)
    for r in serve.audit():
        if r["tool"] == "android_uninstall_app":
            log("  audit", r["seq"], r["client"], r.get("device"), r["outcome"], r.get("decision"), str(r.get("error") or "")[:120])
finally:
    for p in reversed(parts):
        try: p.stop()
        except Exception as e: log(e)
