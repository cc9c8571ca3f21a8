"""audit-b lab: non-root user, rsyslogd (root) on loopback TCP writing a root-only file, the
server as the user, a raw JSON-RPC driver through `spock-tui relay` that accepts elicitations.
Shared by the attack scripts in this directory. Run everything as root."""
import hashlib
import json
import os
import pathlib
import pickle
import pwd
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import traceback

EXE = os.environ.get("SPOCK_EXE", "/work/attack/spock-tui5")
USER = "spock-audb"
GENESIS = "0" * 64


def ensure_user():
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
                        "--shell", "/usr/sbin/nologin", USER], check=False)
        return pwd.getpwnam(USER)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def line_hash(line: str) -> str:
    return hashlib.sha256(line.encode()).hexdigest()


def dumps(rec):
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False)


class Rsyslog:
    def __init__(self, base: pathlib.Path):
        self.port = free_port()
        self.dir = base / "syslog"
        self.dir.mkdir(mode=0o755)
        self.file = self.dir / "anchors.log"
        work = base / "rsyslog-work"
        work.mkdir(mode=0o700)
        conf = work / "rsyslog.conf"
        conf.write_text(
            f'global(workDirectory="{work}")\n'
            'module(load="imtcp")\n'
            f'input(type="imtcp" port="{self.port}" address="127.0.0.1")\n'
            f'action(type="omfile" file="{self.file}" template="RSYSLOG_SyslogProtocol23Format" '
            'fileOwner="root" fileGroup="root" fileCreateMode="0600" dirCreateMode="0755")\n')
        self.err = open(work / "rsyslogd.err", "w")
        self.proc = subprocess.Popen(["rsyslogd", "-n", "-f", str(conf), "-i", str(work / "rsyslogd.pid")],
                                     stdin=subprocess.DEVNULL, stdout=self.err, stderr=self.err)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                assert time.monotonic() < deadline and self.proc.poll() is None
                time.sleep(0.05)

    def lines(self):
        return self.file.read_text(errors="replace").splitlines() if self.file.exists() else []

    def close(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Lab:
    def __init__(self, name="lab"):
        self.pw = ensure_user()
        self.base = pathlib.Path(tempfile.mkdtemp(prefix=f"audb-{name}-"))
        self.base.chmod(0o755)
        self.rsyslog = Rsyslog(self.base)
        self.n = 0
        self.procs = []

    # -- running as the user
    def ids(self):
        return [f"--reuid={self.pw.pw_uid}", f"--regid={self.pw.pw_gid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all"]

    def env(self, home):
        e = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
        e.update(HOME=str(home), USER=USER, LOGNAME=USER, SPOCK_TUI_HOME=str(home / "spock"),
                 XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"),
                 XDG_STATE_HOME=str(home / ".local/state"), XDG_CACHE_HOME=str(home / ".cache"),
                 XDG_RUNTIME_DIR=str(home / "run"))
        return e

    def argv(self, *cmd):
        return ["setpriv", *self.ids(), *cmd]

    def as_user(self, fn, *args):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                os.setgroups([])
                os.setresgid(self.pw.pw_gid, self.pw.pw_gid, self.pw.pw_gid)
                os.setresuid(self.pw.pw_uid, self.pw.pw_uid, self.pw.pw_uid)
                try:
                    out = ("ok", fn(*args))
                except BaseException as e:  # noqa
                    out = ("err", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
                with os.fdopen(w, "wb") as f:
                    f.write(pickle.dumps(out))
            finally:
                os._exit(0)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            data = f.read()
        os.waitpid(pid, 0)
        kind, value = pickle.loads(data)
        if kind == "err":
            raise AssertionError(value)
        return value

    def new_home(self, name, config):
        self.n += 1
        home = self.base / f"{self.n:02d}-{name}"
        home.mkdir(mode=0o700)
        os.chown(home, self.pw.pw_uid, self.pw.pw_gid)

        def make():
            for d in (".config", ".local", ".local/share", ".local/state", ".cache", "run", "spock", "spock/config"):
                (home / d).mkdir(mode=0o700)
            (home / "spock/config/config.toml").write_text(config)
        self.as_user(make)
        return home

    def conf(self, extra_audit="", extra=""):
        return (f'[audit]\nanchor = "tcp:127.0.0.1:{self.rsyslog.port}"\n{extra_audit}\n'
                f'[confirm]\nvia_client = true\n{extra}')

    def write_conf(self, home, text):
        self.as_user(lambda: (home / "spock/config/config.toml").write_text(text))

    def serve(self, home):
        desc = home / "spock/run/endpoint.json"
        self.as_user(lambda: desc.unlink(missing_ok=True))
        err = open(self.base / f"serve-{time.monotonic_ns()}.err", "w")
        e = self.env(home)
        p = subprocess.Popen(self.argv("env", *[f"{k}={v}" for k, v in e.items() if k in (
            "HOME", "USER", "LOGNAME", "SPOCK_TUI_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
            "XDG_CACHE_HOME", "XDG_RUNTIME_DIR")], EXE, "serve", "--demo", "--port", "0", "--toolsets", "all"),
            env=e, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        p.err_path = err.name
        self.procs.append(p)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert p.poll() is None, open(err.name).read()
            try:
                d = json.loads(desc.read_text())
                if d.get("http") and (d.get("unix") or d.get("tcp")):
                    return p
            except (FileNotFoundError, json.JSONDecodeError):
                pass
            time.sleep(0.05)
        raise RuntimeError("serve did not come up: " + open(err.name).read())

    def stop(self, p, sig=signal.SIGTERM):
        if p.poll() is None:
            p.send_signal(sig)
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def client(self, home):
        return Relay(self, home)

    def verify(self, home, anchors=True, as_root=True):
        args = ["audit", "verify"] + (["--anchors", str(self.rsyslog.file)] if anchors else [])
        if as_root:
            r = subprocess.run([EXE, *args], env={**os.environ, "SPOCK_TUI_HOME": str(home / "spock")},
                               capture_output=True, text=True, timeout=120)
        else:
            r = subprocess.run(self.argv("env", f"SPOCK_TUI_HOME={home / 'spock'}", f"HOME={home}", EXE, *args),
                               capture_output=True, text=True, timeout=120)
        return r

    def audit_dir(self, home):
        return home / "spock/data/audit"

    def trail_id(self, home):
        return hashlib.sha256(f"{self.pw.pw_uid}:{os.path.realpath(self.audit_dir(home))}".encode()).hexdigest()[:16]

    def anchors(self, home):
        t = f'trail="{self.trail_id(home)}"'
        return [l for l in self.rsyslog.lines() if t in l]

    def wait_anchor(self, home, reason, count=1, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            hits = [l for l in self.anchors(home) if f'reason="{reason}"' in l]
            if len(hits) >= count:
                return hits
            time.sleep(0.1)
        raise AssertionError(f"no {count} {reason} anchors; have:\n" + "\n".join(self.anchors(home)[-10:]))

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.rsyslog.close()
        if not os.environ.get("KEEP"):
            shutil.rmtree(self.base, ignore_errors=True)


class Relay:
    """Raw JSON-RPC over `spock-tui relay` as the user; answers elicitations with approve."""

    def __init__(self, lab, home, approve=True):
        self.approve = approve
        e = lab.env(home)
        self.p = subprocess.Popen(lab.argv("env", f"SPOCK_TUI_HOME={e['SPOCK_TUI_HOME']}", f"HOME={home}",
                                           EXE, "relay", str(home / "spock/run/endpoint.json")),
                                  env=e, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        lab.procs.append(self.p)
        self.id = 0
        self.req("initialize", {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
                                "clientInfo": {"name": "audb", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, o):
        self.p.stdin.write(json.dumps(o) + "\n")
        self.p.stdin.flush()

    def req(self, method, params, timeout=60):
        self.id += 1
        my = self.id
        self.send({"jsonrpc": "2.0", "id": my, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError("relay closed")
            m = json.loads(line)
            if m.get("method") == "elicitation/create" and "id" in m:
                res = ({"action": "accept", "content": {"approve": True}} if self.approve
                       else {"action": "decline"})
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": res})
                continue
            if m.get("id") == my and ("result" in m or "error" in m):
                return m
        raise TimeoutError(method)

    def call(self, name, args=None):
        m = self.req("tools/call", {"name": name, "arguments": args or {}})
        r = m.get("result", {})
        return bool(r.get("isError")), r.get("structuredContent")

    def fire(self, name, args=None):
        """Send without waiting."""
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": "tools/call", "params": {"name": name, "arguments": args or {}}})

    def close(self):
        try:
            self.p.stdin.close()
        except Exception:
            pass
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def send_frame(port, msg):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(f"{len(msg.encode())} {msg}".encode())


def anchor_msg(trail, run, seq, h, reason, **extra):
    sd = " ".join([f'trail="{trail}"', f'run="{run}"', f'seq="{seq}"', f'hash="{h}"',
                   'time="2030-01-01T00:00:00.000Z"', f'reason="{reason}"'] + [f'{k}="{v}"' for k, v in extra.items()])
    txt = " ".join([f"trail={trail}", f"run={run}", f"seq={seq}", f"hash={h}", "time=2030-01-01T00:00:00.000Z",
                    f"reason={reason}"] + [f"{k}={v}" for k, v in extra.items()])
    return f'<85>1 2030-01-01T00:00:00.000Z host spock-tui 1 anchor [spock@32473 {sd}] audit anchor {txt}'


def show(title, r):
    print(f"--- {title}: exit {r.returncode}")
    print((r.stdout + r.stderr).strip()[:3000])
