"""Issue 33's tampering lab: the server and the tamperer run as a non-root user, the anchors land
in a file of another user's (root's), as on a real machine.

- `ensure_user()` creates (once, idempotently) the system user `spock-audit-test`: no login, no
  home, not in `adm`. Only root can; without root the tests skip (root can rewrite anything, so a
  root-only tampering test proves nothing, and a non-root run cannot create the user).
- `Lab` (one per test module) owns a world-traversable base directory under /tmp (pytest's own
  tmp dirs are 0700 root), a real `rsyslogd` running as root (imtcp on a loopback port) that
  writes the anchor files as Debian's rsyslog.conf does (`$FileOwner root`, `$FileGroup adm`,
  `$FileCreateMode 0640`), and a copy of the binary when the user cannot execute the one given.
- `Lab.server()` starts `spock-tui serve` as the user (`setpriv --reuid --regid --clear-groups`,
  HOME/XDG/SPOCK_TUI_HOME in a directory the user owns); `UserServer.client()` reaches it through
  `spock-tui relay`, also run as the user (the agent's side).
- `Lab.as_user(fn)` runs `fn` in a forked child that has dropped to the user (no groups): every
  tampering step, and the permission probes on the anchor files, run there. `Trail` is what such
  a process does to the audit files (`Lab.tamper(server, lambda t: t.delete_newest(1))`).
"""
import hashlib
import json
import os
import pathlib
import pickle
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
import traceback

import pytest
from conftest import EXE, Instance, free_port, start_instance

USER = "spock-audit-test"
GENESIS = "0" * 64
RSYSLOGD = shutil.which("rsyslogd") or ("/usr/sbin/rsyslogd" if os.path.exists("/usr/sbin/rsyslogd") else None)
SETPRIV = shutil.which("setpriv")
LOGGER = shutil.which("logger")


def skip_reason() -> str | None:
    """Why the non-root tampering tests cannot run here, or None."""
    if os.geteuid() != 0:
        return ("needs root: the test setup creates the user `spock-audit-test` to run the server and "
                "the tamperer as (a tamper test run by root proves nothing), and starts rsyslogd")
    if RSYSLOGD is None:
        return "no rsyslogd: apt-get install rsyslog to run the anchor tests"
    if SETPRIV is None:
        return "no setpriv (util-linux): needed to run the server as the test user"
    return None


def ensure_user() -> pwd.struct_passwd:
    """The test user, created when missing. Left in place afterwards (a system account with no
    login and no home): the next run, or a concurrent module, finds it."""
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        pass
    r = subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
                        "--shell", "/usr/sbin/nologin", "--comment", "spock-tui audit tampering tests", USER],
                       capture_output=True, text=True)
    if r.returncode not in (0, 9):  # 9: it exists (created meanwhile)
        pytest.fail(f"useradd {USER}: {r.stdout}{r.stderr}")
    return pwd.getpwnam(USER)


def line_hash(line: str) -> str:
    return hashlib.sha256(line.encode()).hexdigest()


def dumps(rec: dict) -> str:
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False)


def trail_id(uid: int, audit_dir: pathlib.Path) -> str:
    """The trail's identity in anchors, as the server derives it (audit/anchor.rs `trail_id`):
    the first 8 bytes of SHA-256("UID:canonical audit dir")."""
    return hashlib.sha256(f"{uid}:{os.path.realpath(audit_dir)}".encode()).hexdigest()[:16]


class Trail:
    """What a process of the trail's own user can do to `audit.jsonl` and the files beside it.
    Meant to run in `Lab.as_user`; every edit rewrites the file in place (owner and mode kept).
    Records are dicts; `seq` arguments are record sequence numbers, indexes are list positions."""

    def __init__(self, audit_dir: pathlib.Path):
        self.dir = pathlib.Path(audit_dir)
        self.live = self.dir / "audit.jsonl"
        self.kept = self.dir / "audit.kept.jsonl"
        self.state = self.dir / "audit.state.json"

    # reading and writing
    def lines(self) -> list[str]:
        return self.live.read_text().splitlines() if self.live.exists() else []

    def records(self) -> list[dict]:
        return [json.loads(l) for l in self.lines()]

    def write(self, lines: list[str]):
        with open(self.live, "w") as f:
            f.write("".join(l + "\n" for l in lines))

    def write_records(self, recs: list[dict], recompute_chain: bool = True):
        lines = [dumps(r) for r in recs]
        self.write(rechain(lines) if recompute_chain else lines)

    # the tamperings
    def delete_newest(self, n: int, recompute_chain: bool = False):
        lines = self.lines()[:-n]
        self.write(rechain(lines) if recompute_chain else lines)

    def delete_oldest(self, n: int):
        """The oldest `n` records gone, the rest left as they are (the chain then starts from a
        record that is gone, as after a cap deletion)."""
        self.write(self.lines()[n:])

    def delete_seqs(self, seqs, renumber: bool = True):
        """Records `seqs` dropped; the later ones renumbered to close the gap (`renumber`) and the
        chain recomputed: a file no walk of its own can fault."""
        out, shift = [], 0
        for r in self.records():
            if r.get("seq") in seqs:
                shift += 1
                continue
            if renumber and "seq" in r:
                r["seq"] -= shift
            out.append(r)
        self.write_records(out)

    def rewrite(self, which, fn, recompute_chain: bool = True) -> int:
        """Every record `which` selects (a seq, or a predicate on the record) replaced by
        `fn(record)` (edit in place and return None, or return a new dict); how many."""
        pick = which if callable(which) else (lambda r: r.get("seq") == which)
        out, n = [], 0
        for r in self.records():
            if pick(r):
                n += 1
                r = fn(r) or r
            out.append(r)
        self.write_records(out, recompute_chain)
        return n

    def strip_prev(self):
        self.write_records([{k: v for k, v in r.items() if k != "prev"} for r in self.records()],
                           recompute_chain=False)

    def swap(self, i: int, j: int):
        lines = self.lines()
        lines[i], lines[j] = lines[j], lines[i]
        self.write(lines)

    def truncate_mid_last(self) -> int:
        """The file cut in the middle of its last record (no newline after it); the cut record's seq."""
        data = self.live.read_bytes()
        last_start = data.rstrip(b"\n").rfind(b"\n") + 1
        last = data[last_start:].rstrip(b"\n")
        with open(self.live, "wb") as f:
            f.write(data[:last_start + len(last) // 2])
        return json.loads(last)["seq"]

    def empty(self):
        self.write([])

    def remove(self):
        self.live.unlink()

    def kept_append(self, line: str):
        with open(self.kept, "a") as f:
            f.write(line.rstrip("\n") + "\n")

    def state_to_head(self):
        """`audit.state.json` made to agree with the (tampered) file's last record, so a restarted
        server continues the file's chain and numbering."""
        lines = self.lines()
        st = json.loads(self.state.read_text())
        st.update(seq=json.loads(lines[-1])["seq"], hash=line_hash(lines[-1]))
        self.state.write_text(json.dumps(st))

    def remove_state(self):
        self.state.unlink(missing_ok=True)


def rechain(lines: list[str]) -> list[str]:
    """What a tamperer does after editing records: every prev recomputed, from the genesis."""
    out, prev = [], GENESIS
    for l in lines:
        rec = json.loads(l)
        rec["prev"] = prev
        text = dumps(rec)
        out.append(text)
        prev = line_hash(text)
    return out


class Rsyslog:
    """Debian's rsyslogd, as root, with imtcp on a loopback port and two omfile actions (RFC 5424
    and the traditional format) writing root:adm 0640 files into a root 0755 directory."""

    def __init__(self, base: pathlib.Path):
        self.port = free_port()
        self.dir = base / "syslog"
        self.dir.mkdir(mode=0o755)
        self.rfc5424 = self.dir / "anchors-rfc5424.log"
        self.traditional = self.dir / "anchors.log"
        work = base / "rsyslog-work"
        work.mkdir(mode=0o700)
        perms = 'fileOwner="root" fileGroup="adm" fileCreateMode="0640" dirCreateMode="0755"'
        conf = work / "rsyslog.conf"
        conf.write_text(
            f'global(workDirectory="{work}")\n'
            'module(load="imtcp")\n'
            f'input(type="imtcp" port="{self.port}" address="127.0.0.1")\n'
            f'action(type="omfile" file="{self.rfc5424}" template="RSYSLOG_SyslogProtocol23Format" {perms})\n'
            f'action(type="omfile" file="{self.traditional}" {perms})\n'
        )
        self.err_path = work / "rsyslogd.err"
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen([RSYSLOGD, "-n", "-f", str(conf), "-i", str(work / "rsyslogd.pid")],
                                     stdin=subprocess.DEVNULL, stdout=self.err, stderr=self.err)
        deadline = time.monotonic() + 10
        while True:
            assert self.proc.poll() is None, self.err_path.read_text()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                assert time.monotonic() < deadline, "rsyslogd did not listen"
                time.sleep(0.05)

    def lines(self, path=None) -> list[str]:
        path = path or self.rfc5424
        return path.read_text(errors="replace").splitlines() if path.exists() else []

    def wait_for(self, *parts, path=None) -> str:
        """The first line holding every one of `parts`, waited for."""
        deadline = time.monotonic() + 10
        while True:
            for l in self.lines(path):
                if all(p in l for p in parts):
                    return l
            assert time.monotonic() < deadline, f"{parts!r} not in {path or self.rfc5424}"
            time.sleep(0.05)

    def close(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()


class UserServer(Instance):
    """A `spock-tui serve` run as the lab's user."""

    def __init__(self, lab: "Lab", inst: Instance, home: pathlib.Path):
        super().__init__(inst.home, inst.proc, inst.stderr_path)
        self.lab = lab
        self.user_home = home

    @property
    def audit_dir(self) -> pathlib.Path:
        return self.home / "data" / "audit"

    @property
    def trail(self) -> str:
        return trail_id(self.lab.pw.pw_uid, self.audit_dir)

    def user_env(self) -> dict:
        return self.lab.user_env(self.user_home, self.home)

    def relay_params(self):
        from mcp.client.stdio import StdioServerParameters

        argv = self.lab.as_user_argv(self.user_home, self.home, self.lab.exe, "relay", str(self.descriptor_path))
        return StdioServerParameters(command=argv[0], args=argv[1:], env=self.user_env())

    def client(self, **kw):
        from mcp import Client

        return Client(self.relay_params(), mode="legacy", **kw)

    def run(self, *args, **kw) -> subprocess.CompletedProcess:
        """`spock-tui ARGS` as the user, in this server's home."""
        argv = self.lab.as_user_argv(self.user_home, self.home, self.lab.exe, *args)
        return subprocess.run(argv, env=self.user_env(), capture_output=True, text=True, timeout=60, **kw)

    def run_as_root(self, *args) -> subprocess.CompletedProcess:
        return subprocess.run([self.lab.exe, *args], env={**os.environ, "SPOCK_TUI_HOME": str(self.home)},
                              capture_output=True, text=True, timeout=60)

    def wait_for_anchor(self, reason: str, after: int = 0) -> str:
        """This trail's anchor of `reason`, the (after+1)-th one."""
        deadline = time.monotonic() + 10
        mine = f'trail="{self.trail}"'
        while True:
            hits = [l for l in self.lab.rsyslog.lines() if mine in l and f'reason="{reason}"' in l]
            if len(hits) > after:
                return hits[after]
            assert time.monotonic() < deadline, f"no {reason} anchor #{after + 1} of trail {self.trail}"
            time.sleep(0.05)


class Lab:
    def __init__(self):
        self.pw = ensure_user()
        self.base = pathlib.Path(tempfile.mkdtemp(prefix="spock-audit-"))
        self.base.chmod(0o755)
        self.homes = self.base / "homes"
        self.homes.mkdir(mode=0o755)
        self.exe = self._executable()
        self.rsyslog = Rsyslog(self.base)
        self.n = 0

    def _executable(self) -> str:
        """The binary under test, or a copy of it the user can execute (a repository under
        /root, as in some CI checkouts, is not reachable for the user)."""
        if self.as_user(os.access, EXE, os.X_OK):
            return EXE
        bindir = self.base / "bin"
        bindir.mkdir(mode=0o755)
        shutil.copy2(EXE, bindir / "spock-tui")
        (bindir / "spock-tui").chmod(0o755)
        return str(bindir / "spock-tui")

    def _ids(self) -> list[str]:
        # setpriv keeps root's capabilities up to its exec (which is why that exec may reach into
        # root's 0700 directories: `_executable` checks with the user's own rights); none survive
        # it, and none may come back.
        return [f"--reuid={self.pw.pw_uid}", f"--regid={self.pw.pw_gid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all"]

    def user_env(self, user_home: pathlib.Path, spock_home: pathlib.Path) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
        env.update(HOME=str(user_home), USER=USER, LOGNAME=USER, SPOCK_TUI_HOME=str(spock_home),
                   XDG_CONFIG_HOME=str(user_home / ".config"), XDG_DATA_HOME=str(user_home / ".local/share"),
                   XDG_STATE_HOME=str(user_home / ".local/state"), XDG_CACHE_HOME=str(user_home / ".cache"),
                   XDG_RUNTIME_DIR=str(user_home / "run"))
        return env

    def as_user_argv(self, user_home, spock_home, *cmd) -> list[str]:
        """`cmd` as the user: setpriv, then env (its environment is already `user_env`, but the
        server started through conftest's `start_instance` gets root's: `env` sets it)."""
        env = self.user_env(user_home, spock_home)
        sets = [f"{k}={env[k]}" for k in ("HOME", "USER", "LOGNAME", "SPOCK_TUI_HOME", "XDG_CONFIG_HOME",
                                          "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR")]
        return [SETPRIV, *self._ids(), "env", *sets, *cmd]

    def as_user(self, fn, *args):
        """`fn(*args)` in a forked child running as the user (real, effective and saved uid and
        gid; no supplementary groups); its return value, or its exception re-raised here."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            code = 0
            try:
                os.close(r)
                os.setgroups([])
                os.setresgid(self.pw.pw_gid, self.pw.pw_gid, self.pw.pw_gid)
                os.setresuid(self.pw.pw_uid, self.pw.pw_uid, self.pw.pw_uid)
                try:
                    out = ("ok", fn(*args))
                except BaseException as e:  # noqa: BLE001 - carried to the parent
                    out = ("err", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
                with os.fdopen(w, "wb") as f:
                    try:
                        f.write(pickle.dumps(out))
                    except Exception as e:  # noqa: BLE001
                        f.write(pickle.dumps(("err", f"result not picklable: {e}")))
            except BaseException:  # noqa: BLE001
                code = 1
            finally:
                os._exit(code)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            data = f.read()
        _, status = os.waitpid(pid, 0)
        assert data, f"the user's process died (status {status})"
        kind, value = pickle.loads(data)
        if kind == "err":
            raise AssertionError(f"in the process of {USER}: {value}")
        return value

    def tamper(self, server: UserServer, fn):
        """`fn(Trail)` on the server's audit directory, as the user."""
        return self.as_user(lambda: fn(Trail(server.audit_dir)))

    def user_cmd(self, server: UserServer, *cmd) -> subprocess.CompletedProcess:
        argv = self.as_user_argv(server.user_home, server.home, *cmd)
        return subprocess.run(argv, env=server.user_env(), capture_output=True, text=True, timeout=30)

    def new_home(self, name: str) -> tuple[pathlib.Path, pathlib.Path]:
        """A fresh home owned by the user (0700) and the SPOCK_TUI_HOME in it."""
        self.n += 1
        user_home = self.homes / f"{self.n:02d}-{name}"[:60]
        user_home.mkdir(mode=0o700)
        os.chown(user_home, self.pw.pw_uid, self.pw.pw_gid)
        spock = user_home / "spock"

        def make():
            for d in (".config", ".local", ".local/share", ".local/state", ".cache", "run", "spock", "spock/config"):
                (user_home / d).mkdir(mode=0o700)

        self.as_user(make)
        return user_home, spock

    def server(self, tmp_path, name: str, *args: str, config: str = "", home=None) -> UserServer:
        """`serve --demo ARGS` as the user, anchoring to the lab's rsyslogd; `home` (a previous
        server's) restarts on the same trail."""
        if home is None:
            user_home, spock = self.new_home(name)
            conf = f'[audit]\nanchor = "tcp:127.0.0.1:{self.rsyslog.port}"\n{config}'
            self.as_user(lambda: (spock / "config" / "config.toml").write_text(conf))
        else:
            user_home, spock = home.user_home, home.home
        wrap = tuple(self.as_user_argv(user_home, spock))
        inst = start_instance(tmp_path, "--demo", *args, home=spock, wrap=wrap, exe=self.exe)
        return UserServer(self, inst, user_home)

    def handed_over(self, source: pathlib.Path, name: str) -> pathlib.Path:
        """A copy of the anchor file (root's, 0640 root:adm) that the user may read but not
        change: root 0444 in a root 0755 directory."""
        d = self.base / "handover"
        d.mkdir(mode=0o755, exist_ok=True)
        self.n += 1
        dst = d / f"{self.n:02d}-{name}-{source.name}"
        shutil.copyfile(source, dst)
        dst.chmod(0o444)
        return dst

    def close(self):
        self.rsyslog.close()
        shutil.rmtree(self.base, ignore_errors=True)


def mode_of(path: pathlib.Path) -> tuple[int, int, int]:
    st = path.stat()
    return st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)
