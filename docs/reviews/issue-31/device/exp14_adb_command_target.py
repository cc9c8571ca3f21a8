"""Attack 14: android_run_adb_command with a target inside the command string (-s P, -t N,
-e, -d, `--serial`, env ANDROID_SERIAL) while `serial` (what the modal and the lease check see)
names the unleased phone Q. P is leased by A."""
import sys, json, time
sys.path.insert(0, "/work/attacks/device")
from lib import *

lab = Lab(n=2)
try:
    P, Q = lab.adbd
    person = Person(lab.serve)
    a = Http(lab.serve, "agent-a"); b = Http(lab.serve, "agent-b")
    log("A lease P:", a.call("android_lease_device", {"serial": P})[1].get("action"))
    tid = [l for l in lab.adb.adb("devices", "-l").splitlines() if l.startswith(P)][0].split("transport_id:")[1]
    cmds = [f"-s {P} shell settings put global stay_on_while_plugged_in 7",
            f"-t {tid} shell settings put global stay_on_while_plugged_in 7",
            f"--serial {P} shell settings put global stay_on_while_plugged_in 7",
            f"-H 127.0.0.1 -P {lab.adb.port} -s {P} shell settings put global stay_on_while_plugged_in 7",
            f"shell ANDROID_SERIAL={P} settings put global stay_on_while_plugged_in 7",
            f"connect localhost:{P.split(':')[1]}",
            f"forward tcp:0 tcp:5555",
            f"shell settings put global stay_on_while_plugged_in 7 ; adb -s {P} shell id"]
    for c in cmds:
        box = bg(b.call, "android_run_adb_command", {"command": c, "serial": Q, "reason": "attack probe: targeting"})
        ask = person.ask(timeout=5, tool="android_run_adb_command")
        if ask:
            log(f"cmd {c!r}: MODAL device={ask['device']} args={json.dumps(ask['arguments'])[:120]}")
            person.approve(ask["call_id"])
        r = wait_box(box, 30)
        log(f"   result: {json.dumps(r)[:220]}")
    log("P setting:", lab.adb.adb("-s", P, "shell", "settings", "get", "global", "stay_on_while_plugged_in").strip(),
        "Q setting:", lab.adb.adb("-s", Q, "shell", "settings", "get", "global", "stay_on_while_plugged_in").strip())
finally:
    lab.close()
