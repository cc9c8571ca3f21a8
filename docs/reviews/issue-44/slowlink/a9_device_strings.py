"""A9: device-controlled strings (a virtual device whose model, app label and version carry
escape sequences: OSC title, DSR ESC[5n -- a forged fence answer from the terminal itself --,
8-bit CSI, CPR query, BEL). The model is drawn inside the approval modal ("Device sim-1
(MODEL)"), so a raw DSR there would be answered by the terminal in the same frame. Oracle: the
program's raw output, the pane title, number of ESC[5n written vs ESC[0n answered, and the
arming: a y typed before the request is on screen (RTT 2.5 s) must approve nothing."""
import asyncio, re, subprocess, sys
from lib import *
P = r"\u001b]2;PWNED\u0007\u001b[5n\u009b5n\u001b[6n\u0007"
async def main():
    home = pathlib.Path(tempfile.mkdtemp(prefix="slowlink-dev-")); (home / "config").mkdir()
    toml = open("/work/main/assets/demo/demo.toml").read()
    toml = toml.replace('model = "Pixel 7"', f'model = "Pix{P}el"', 1).replace('label = "Notes"', f'label = "No{P}tes"', 1).replace('version_name = "2.0.1"', f'version_name = "2{P}.0"', 1)
    toml = re.sub(r'(ui = ")screens/', r'\1/work/main/assets/demo/screens/', toml)
    (home / "dev.toml").write_text(toml)
    sim = subprocess.Popen([EXE, "sim", "--adb-server", "127.0.0.1:0", "--scenario", str(home / "dev.toml")], stdout=subprocess.PIPE, stderr=open(home / "sim.err", "w"), text=True)
    t = None
    try:
        line = sim.stdout.readline(); info = json.loads(line); print("sim:", line.strip()[:200])
        addr = info.get("adb_server") or info.get("adbServer") or [v for k, v in info.items() if "server" in k][0]
        if isinstance(addr, list): addr = addr[0]
        t = Tui(up=1.25, down=1.25, home=home, mode="adb", extra=("--adb", addr))
        rawdown = home / "rawdown.bin"; t.set_link(rawdown=str(rawdown))
        await t.wait_for("[running]", timeout=40)
        async with client(t) as c:
            e, r = await call(c, "android_get_device_info", {}); print("device info:", str(r)[:200].encode("unicode_escape").decode())
            await call(c, "android_get_package_info", {"packageName": "com.example.notes"})
            task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes"}))
            a = time.monotonic(); n = 0
            while MODAL not in t.screen() and time.monotonic() - a < 20:
                t.keys("y"); n += 1; await asyncio.sleep(0.05)
            t.keys("y"); t.keys("Tab"); t.keys("Enter")
            print("y typed", n + 1, "until the modal was on screen at +%.2f" % (time.monotonic() - a))
            await asyncio.sleep(3.5)
            r = await result_of(task, 0.1); print("RESULT:", r)
            print([l for l in t.screen().splitlines() if "Device" in l or "Pix" in l][:3])
            if r is None: t.keys("n"); await result_of(task, 5)
        data = rawdown.read_bytes()
        for name, needle in [("OSC title", b"\x1b]2;PWNED"), ("C1 CSI", b"\xc2\x9b"), ("CPR query", b"\x1b[6n"), ("BEL", b"\x07")]:
            print(f"{name}: count={data.count(needle)}")
        L = t.linklog(); print("ESC[5n written:", data.count(b"\x1b[5n"), "ESC[0n answers:", L.count("[0n"))
        i = data.find(b"PWNED"); print("sample:", repr(data[max(0, i - 40):i + 40]))
        print("pane title:", repr(t.title()), "pane dead:", t.pane_dead())
        for rec in t.audit():
            if rec.get("tool") == "android_uninstall_app": print(json.dumps(short(rec))[:300].encode("ascii", "backslashreplace").decode())
    finally:
        if t: t.kill()
        sim.terminate(); sim.wait(10)
asyncio.run(main())
