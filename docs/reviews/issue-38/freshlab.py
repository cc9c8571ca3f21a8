"""Self-contained lab for the repro scripts: a fresh sim (2 demo devices), private adb server and
`spock-tui serve` (the binary SPOCK_TUI_BIN names) in a new temp dir; yields a ready MCP client."""
import os, sys, json, pathlib, tempfile, contextlib, time
os.environ.setdefault("SPOCK_TUI_BIN", "spock-tui")  # the binary under attack
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "tests" / "python"))
import anyio
from mcp import Client
from conftest import start_instance
from test_lab import DEMO, AdbServer, Sim
SHOP = "com.example.shop"; NOTES = "com.example.notes"; LAUNCHER = "com.google.android.apps.nexuslauncher"

class Lab:
    def __init__(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="lab-", dir=None))
        self.sim = Sim(self.tmp, "t", "--adbd", "127.0.0.1:0", "--adbd", "127.0.0.1:0", "--device", str(DEMO), "--device", str(DEMO))
        self.adb = AdbServer(self.tmp, "t")
        self.A, self.B = (d["addr"] for d in self.sim.info["adbd"])
        self.adb.connect(self.A); self.adb.connect(self.B)
        self.inst = start_instance(self.tmp, "--adb", self.adb.endpoint)
    def write_tree(self, entries):
        text = "".join(f"[access.devices.{json.dumps(k)}]\n" + "".join(f"{f} = {json.dumps(v)}\n" for f, v in e.items()) for k, e in entries.items())
        (self.inst.home / "config").mkdir(parents=True, exist_ok=True)
        (self.inst.home / "config" / "config.toml").write_text(text)
    def close(self):
        self.inst.stop(); self.adb.stop(); self.sim.stop()

async def identities(c, A, B):
    for _ in range(100):
        r = (await c.call_tool("android_list_devices", {})).structured_content
        m = {d["serial"]: d.get("identity") for d in r["devices"]}
        if m.get(A) and m.get(B): return m[A], m[B]
        await anyio.sleep(0.2)
    raise RuntimeError(r)

async def until_refused(c, tool, args):
    for _ in range(60):
        res = await c.call_tool(tool, args)
        if res.is_error and (res.structured_content or {}).get("kind") == "disabled":
            return res.structured_content
        await anyio.sleep(0.2)
    raise RuntimeError("restriction never applied")

def short(x, n=300):
    s = x if isinstance(x, str) else json.dumps(x)
    return s if len(s) <= n else s[:n] + f"...(+{len(s)-n})"
