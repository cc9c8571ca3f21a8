"""Attack 7: (a) quoted values without spaces in the claimed shapes (password="x", token="x");
(b) a file the person put on the device (adb push, out of band) holding a hidden value and
the shapes that leaked; the agent pulls it: text, size, SHA-256, any fragment."""
import anyio, json, re, sys, base64, hashlib, pathlib
from lab import Lab, call, logcat
from mcp import Client

Q = ['password="QN1secretA"', "password='QN2secretB'", 'token="QN3secretCC"', 'secret="QN4secretD"',
     "PASSWORD='QN5secretE'", 'api_key="QN6secretF"']
FILE = ("user=bob\npassword=FH1hiddenA\npassword = FL2leakB\nclient_secret=\"FL3 leakC\"\n"
        "{\\\"password\\\":\\\"FL4leakD\\\"}\n")

async def main():
    lab = Lab("".join(logcat("I", "Quoted", m) for m in Q))
    try:
        loc = lab.tmp / "creds.txt"; loc.write_text(FILE)
        print("push:", lab.adb("-s", lab.serial, "push", str(loc), "/sdcard/creds.txt").stdout.strip()[:100])
        print("device ls:", lab.shell("ls -l /sdcard/creds.txt").strip())
        async with Client(lab.relay_params(), mode="legacy") as c:
            e, o, s, _ = await call(c, "android_get_logcat", {"tag": "Quoted"})
            for l in o.get("lines", []):
                print(("LEAK " if re.search(r"QN\d", l["message"]) else "ok   ") + l["message"])
            e, o, s, r = await call(c, "android_pull_file", {"devicePath": "/sdcard/creds.txt"})
            print("pull err:", e)
            print("pull answer:", s[:900])
            for tok in ["FH1hiddenA", "FL2leakB", "FL3 leakC", "FL4leakD"]:
                print(f"  {tok}: {'LEAK' if tok in s else 'hidden'}")
            print("  size/sha present:", re.findall(r'"(size|bytes|sha256|sha256Hex|length)"', s))
            print("  true sha256:", hashlib.sha256(FILE.encode()).hexdigest()[:16], "in answer:", hashlib.sha256(FILE.encode()).hexdigest()[:16] in s)
    finally:
        lab.close()
anyio.run(main)
