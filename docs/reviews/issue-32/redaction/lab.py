"""Shared lab for the redaction attacks: spock-tui4 sim (demo scenario + additions) behind a
private real adb server, spock-tui4 serve --adb, an MCP agent over the stdio relay."""
import json, os, pathlib, shutil, signal, socket, subprocess, sys, tempfile, time
sys.path.insert(0, "/work/main/tests/python")
EXE = "/work/attack/spock-tui4"
DEMO = pathlib.Path("/work/main/assets/demo")

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]

def logcat(level, tag, message):
    return f'\n[[logcat]]\nlevel = "{level}"\ntag = "{tag}"\nmessage = {json.dumps(message)}\n'

class Lab:
    def __init__(self, toml_extra="", screen_edits=None, config=None, home=None):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="redact-"))
        scen = self.tmp / "scen"; shutil.copytree(DEMO, scen)
        for name, pairs in (screen_edits or {}).items():
            if isinstance(pairs, tuple): pairs = [pairs]
            p = scen / "screens" / name; x = p.read_text()
            for old, new in pairs:
                assert old in x, (name, old); x = x.replace(old, new, 1)
            p.write_text(x)
        t = (scen / "demo.toml").read_text() + toml_extra
        (scen / "demo.toml").write_text(t)
        self.scen = scen / "demo.toml"
        self.home = pathlib.Path(home) if home else self.tmp / "home"
        self.port = free_port(); self.env = {**os.environ, "ADB_EMU": "0"}
        self.sim = subprocess.Popen([EXE, "sim", "--adbd", "127.0.0.1:0", "--device", str(self.scen)],
                                    stdout=subprocess.PIPE, stderr=open(self.tmp / "sim.err", "w"), text=True)
        self.info = json.loads(self.sim.stdout.readline())
        self.adb("start-server")
        self.serial = self.info["adbd"][0]["addr"]
        self.adb("connect", self.serial)
        for _ in range(100):
            if f"{self.serial}\tdevice" in self.adb("devices").stdout: break
            time.sleep(0.1)
        if config:
            (self.home / "config").mkdir(parents=True, exist_ok=True)
            (self.home / "config" / "config.toml").write_text(config)
        self.serve = None
        self.start_serve()

    def start_serve(self):
        d = self.home / "run" / "endpoint.json"
        if d.exists(): d.unlink()
        self.serve = subprocess.Popen([EXE, "serve", "--port", "0", "--toolsets", "all", "--adb", f"127.0.0.1:{self.port}"],
                                      env={**os.environ, "SPOCK_TUI_HOME": str(self.home)}, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=open(self.tmp / "serve.err", "a"))
        for _ in range(300):
            try:
                j = json.loads(d.read_text())
                if j.get("http"): return
            except Exception: pass
            time.sleep(0.05)
        raise RuntimeError("serve did not come up")

    def stop_serve(self):
        if self.serve and self.serve.poll() is None:
            self.serve.send_signal(signal.SIGTERM)
            try: self.serve.wait(10)
            except subprocess.TimeoutExpired: self.serve.kill(); self.serve.wait()

    def adb(self, *a, timeout=30):
        return subprocess.run(["adb", "-P", str(self.port), *a], env=self.env, capture_output=True, text=True, timeout=timeout)

    def shell(self, cmd):
        return self.adb("-s", self.serial, "shell", cmd).stdout

    def relay_params(self):
        from mcp.client.stdio import StdioServerParameters
        return StdioServerParameters(command=EXE, args=["relay", str(self.home / "run" / "endpoint.json")],
                                     env={**os.environ, "SPOCK_TUI_HOME": str(self.home)})

    def close(self):
        self.stop_serve()
        self.adb("kill-server")
        if self.sim.poll() is None: self.sim.kill(); self.sim.wait()

async def call(c, tool, args=None):
    r = await c.call_tool(tool, args or {})
    parts = [json.dumps(r.structured_content or {}, ensure_ascii=False)]
    parts += [x.text for x in r.content if x.type == "text"]
    return bool(r.is_error), (r.structured_content or {}), "\n".join(parts), r
