"""Shared harness for the own-tools attack scripts (black-box only).

Each script does:  with Spock(tools={"x.toml": "..."}, config="...") as sp: asyncio.run(main(sp))
Spock starts `spock-tui serve --demo --port 0 --toolsets all` in a fresh temp SPOCK_TUI_HOME,
and tears it down (by its own pid) on exit.
"""
import asyncio, json, os, re, shutil, subprocess, sys, tempfile, time, contextlib

BIN = os.environ.get("SPOCK_TUI_BIN", "spock-tui")
PY = sys.executable

import mcp
from mcp import types
from mcp.client.stdio import stdio_client


class Spock:
    def __init__(self, tools=None, config="", via_client=True, extra_args=(), keep=False):
        self.tools = tools or {}
        self.config = config
        self.via_client = via_client
        self.extra_args = list(extra_args)
        self.keep = keep
        self.proc = None

    def __enter__(self):
        self.home = tempfile.mkdtemp(prefix="spock-atk-")
        os.makedirs(f"{self.home}/config/tools.d", exist_ok=True)
        cfg = self.config
        if self.via_client and "[confirm]" not in cfg:
            cfg = "[confirm]\nvia_client = true\n" + cfg
        with open(f"{self.home}/config/config.toml", "w") as f:
            f.write(cfg)
        for name, text in self.tools.items():
            self.write_tool(name, text)
        self.log = open(f"{self.home}/serve.log", "w+")
        env = dict(os.environ, SPOCK_TUI_HOME=self.home)
        self.proc = subprocess.Popen([BIN, "serve", "--demo", "--port", "0", "--toolsets", "all", *self.extra_args],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.desc = f"{self.home}/run/endpoint.json"
        for _ in range(100):
            if os.path.exists(self.desc) and "adb server" in self.logtext():
                break
            time.sleep(0.1)
        m = re.search(r"built-in adb server 127\.0\.0\.1:(\d+)", self.logtext())
        self.adb_port = int(m.group(1)) if m else None
        return self

    def logtext(self):
        with open(f"{self.home}/serve.log") as f:
            return f.read()

    def __exit__(self, *a):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if not self.keep:
            shutil.rmtree(self.home, ignore_errors=True)

    def write_tool(self, name, text):
        p = f"{self.home}/config/tools.d/{name}"
        tmp = p + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, p)

    def reload(self):
        env = dict(os.environ, SPOCK_TUI_HOME=self.home)
        return subprocess.run([BIN, "tools", "reload"], env=env, capture_output=True, text=True)

    def tools_list(self):
        env = dict(os.environ, SPOCK_TUI_HOME=self.home)
        return subprocess.run([BIN, "tools", "list"], env=env, capture_output=True, text=True)

    def audit(self):
        p = f"{self.home}/data/audit/audit.jsonl"
        if not os.path.exists(p):
            return []
        out = []
        with open(p) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        out.append(json.loads(line))
                    except Exception:
                        out.append({"raw": line})
        return out

    def audit_raw(self):
        p = f"{self.home}/data/audit/audit.jsonl"
        return open(p).read() if os.path.exists(p) else ""

    def adb(self, cmd, timeout=10):
        """Independent check of the virtual device, via the real adb client to the demo adb server."""
        r = subprocess.run(["adb", "-H", "127.0.0.1", "-P", str(self.adb_port), "-s", "sim-1", "shell", cmd],
                           capture_output=True, text=True, timeout=timeout)
        return r.stdout + r.stderr

    @contextlib.asynccontextmanager
    async def session(self, elicit=None):
        params = mcp.StdioServerParameters(command=BIN, args=["relay", self.desc],
                                           env=dict(os.environ, SPOCK_TUI_HOME=self.home))
        async with stdio_client(params) as (r, w):
            kw = {}
            if elicit is not None:
                kw["elicitation_callback"] = elicit
            async with mcp.ClientSession(r, w, **kw) as s:
                await s.initialize()
                yield s


class Elicit:
    """Records what the person was shown; approves (or denies) and can run a hook before answering."""
    def __init__(self, approve=True, hook=None):
        self.approve = approve
        self.hook = hook
        self.seen = []

    async def __call__(self, ctx, params):
        d = params.model_dump() if hasattr(params, "model_dump") else dict(params)
        self.seen.append(d)
        if self.hook:
            r = self.hook(d)
            if asyncio.iscoroutine(r):
                await r
        if self.approve:
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")


def show(res):
    """Text of a CallToolResult."""
    if isinstance(res, Exception):
        return f"EXC {type(res).__name__}: {res}"
    parts = []
    for c in res.content or []:
        parts.append(getattr(c, "text", str(c)))
    s = "\n".join(parts)
    sc = getattr(res, "structured_content", None) or getattr(res, "structuredContent", None)
    return f"isError={res.is_error if hasattr(res,'is_error') else res.isError} text={s!r} structured={json.dumps(sc)[:1500] if sc else None}"


async def call(s, name, args):
    try:
        return await s.call_tool(name, args)
    except Exception as e:
        return e


def mksh_eval(cmd):
    """Run an expanded command in a real mksh (Android's /system/bin/sh) with every command a stub
    that only logs its argv, to see how a real device shell would split it. Returns the log."""
    d = tempfile.mkdtemp(prefix="mksh-")
    log = f"{d}/argv.log"
    stub = "#!/bin/sh\n{ printf '%s' \"$(basename \"$0\")\"; for a in \"$@\"; do printf '\\037%s' \"$a\"; done; printf '\\036'; } >> " + log + "\n"
    for c in ["rm", "pm", "am", "dumpsys", "settings", "cmd", "svc", "reboot", "id", "input", "log", "setprop",
              "getprop", "wm", "ls", "cat", "touch", "toybox", "logcat", "content", "monkey", "recovery",
              "echo2", "uninstall", "sm", "mkdir", "cp", "mv", "chmod", "dd"]:
        with open(f"{d}/{c}", "w") as f:
            f.write(stub)
        os.chmod(f"{d}/{c}", 0o755)
    with open(f"{d}/su", "w") as f:
        f.write(stub + 'if [ "$1" = "-c" ]; then shift; exec sh -c "$@"; fi\n')
    os.chmod(f"{d}/su", 0o755)
    env = {"PATH": f"{d}:/usr/bin:/bin", "HOME": d}
    # su/xargs stubs log only; use real sh for `sh -c`
    r = subprocess.run(["mksh", "-c", cmd], capture_output=True, text=True, env=env, cwd=d, timeout=10)
    out = open(log, encoding="utf-8", errors="replace", newline="").read() if os.path.exists(log) else ""
    # records separated by \x1e, argv words by \x1f; rendered as "cmd [a] [b]" lines
    out = "\n".join(" ".join([r.split("\x1f")[0]] + ["[" + w + "]" for w in r.split("\x1f")[1:]]) for r in out.split("\x1e") if r)
    shutil.rmtree(d, ignore_errors=True)
    return out, r.stdout, r.stderr
