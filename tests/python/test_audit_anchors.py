"""The audit trail anchored in a real syslog daemon: Debian's rsyslogd, started here with its own
configuration (imtcp on a loopback port, omfile to a file in the test's directory), receives the
server's anchors; `spock-tui audit verify --anchors FILE` checks the trail against that file.

Each tampering below leaves a chain that `audit verify` alone calls intact; the anchors catch it.
Still to come (issue 33): the server and the tamperer as a non-root user, the anchor file
another user's."""
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest
from conftest import call, free_port, start_instance
from mcp import Client

pytestmark = pytest.mark.anyio

RSYSLOGD = shutil.which("rsyslogd") or ("/usr/sbin/rsyslogd" if os.path.exists("/usr/sbin/rsyslogd") else None)


class Rsyslog:
    def __init__(self, tmp_path):
        self.port = free_port()
        self.rfc5424 = tmp_path / "anchors-rfc5424.log"
        self.traditional = tmp_path / "anchors.log"
        work = tmp_path / "rsyslog-work"
        work.mkdir()
        conf = tmp_path / "rsyslog.conf"
        conf.write_text(
            f'global(workDirectory="{work}")\n'
            'module(load="imtcp")\n'
            f'input(type="imtcp" port="{self.port}" address="127.0.0.1")\n'
            f'action(type="omfile" file="{self.rfc5424}" template="RSYSLOG_SyslogProtocol23Format")\n'
            f'action(type="omfile" file="{self.traditional}")\n'
        )
        self.pidfile = tmp_path / "rsyslogd.pid"
        self.err = open(tmp_path / "rsyslogd.err", "w")
        self.proc = subprocess.Popen([RSYSLOGD, "-n", "-f", str(conf), "-i", str(self.pidfile)],
                                     stdin=subprocess.DEVNULL, stdout=self.err, stderr=self.err)
        deadline = time.monotonic() + 10
        while True:
            assert self.proc.poll() is None, (tmp_path / "rsyslogd.err").read_text()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                assert time.monotonic() < deadline, "rsyslogd did not listen"
                time.sleep(0.05)

    def wait_for(self, text, path=None):
        path = path or self.rfc5424
        deadline = time.monotonic() + 10
        while not (path.exists() and text in path.read_text(errors="replace")):
            assert time.monotonic() < deadline, f"{text!r} not in {path}"
            time.sleep(0.05)

    def send(self, msg: str):
        """What any process of the same user can do: send its own message to the collector."""
        with socket.create_connection(("127.0.0.1", self.port)) as s:
            s.sendall(f"{len(msg.encode())} {msg}".encode())

    def close(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()


@pytest.fixture
def rsyslog(tmp_path):
    if RSYSLOGD is None:
        pytest.skip("no rsyslogd: apt-get install rsyslog to run the anchor tests")
    r = Rsyslog(tmp_path)
    yield r
    r.close()


def line_hash(line: str) -> str:
    return hashlib.sha256(line.encode()).hexdigest()


def rechain(lines: list[str]) -> list[str]:
    """What a tamperer does after editing records: every prev recomputed, from the genesis."""
    out, prev = [], "0" * 64
    for l in lines:
        rec = json.loads(l)
        rec["prev"] = prev
        text = json.dumps(rec, separators=(",", ":"), ensure_ascii=False)
        out.append(text)
        prev = line_hash(text)
    return out


async def anchored_trail(tmp_path, rsyslog):
    """A demo server anchoring to rsyslog: reads, a denied uninstall, more reads; stopped."""
    inst = start_instance(tmp_path, "--demo", config=f'[audit]\nanchor = "tcp:127.0.0.1:{rsyslog.port}"\n')
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            for _ in range(3):
                err, _ = await call(c, "android_get_battery_info")
                assert not err
            err, r = await call(c, "android_uninstall_app", {"packageName": "com.example.notes"})
            assert err and r["kind"] == "denied", r
            for _ in range(2):
                err, _ = await call(c, "android_get_battery_info")
                assert not err
    finally:
        inst.stop()
    rsyslog.wait_for('reason="stop"')
    return inst, inst.home / "data" / "audit" / "audit.jsonl"


def verify(inst, source):
    return inst.run("audit", "verify", "--anchors", str(source))


async def test_an_honest_trail_agrees_with_its_anchors_and_plain_verify_says_what_it_cannot_see(tmp_path, rsyslog):
    inst, _ = await anchored_trail(tmp_path, rsyslog)
    rsyslog.wait_for("reason=stop", rsyslog.traditional)
    for source in (rsyslog.rfc5424, rsyslog.traditional):
        v = verify(inst, source)
        assert v.returncode == 0, v.stdout + v.stderr
        assert "intact" in v.stdout and "agrees with" in v.stdout, v.stdout
    log = rsyslog.rfc5424.read_text()
    assert 'reason="start"' in log and 'reason="record"' in log, log
    plain = inst.run("audit", "verify")
    assert plain.returncode == 0 and "cannot detect records deleted from the end" in plain.stdout, plain.stdout


def delete_newest(n):
    return lambda lines: lines[:-n]


def denied_rewritten_as_ok(lines):
    out = []
    for l in lines:
        rec = json.loads(l)
        if rec.get("outcome") == "denied":
            rec.update(tool="android_get_battery_info", level="read_only", outcome="ok", arguments={})
            rec.pop("decision", None)
            rec.pop("error", None)
        out.append(json.dumps(rec, separators=(",", ":")))
    return rechain(out)


def every_prev_removed(lines):
    out = []
    for l in lines:
        rec = json.loads(l)
        rec.pop("prev", None)
        out.append(json.dumps(rec, separators=(",", ":")))
    return out


TAMPERINGS = {
    "newest record deleted": (delete_newest(1), "removed from its end"),
    "newest five deleted": (delete_newest(5), "removed from its end"),
    "emptied": (lambda lines: [], "holds none"),
    "denied rewritten as an ok battery read, chain recomputed": (denied_rewritten_as_ok, "rewritten"),
    "every prev removed": (every_prev_removed, "chain was stripped"),
}


@pytest.mark.parametrize("case", list(TAMPERINGS))
async def test_tampering_the_chain_hides_is_caught_by_the_anchors(tmp_path, rsyslog, case):
    tamper, finding = TAMPERINGS[case]
    inst, trail = await anchored_trail(tmp_path, rsyslog)
    lines = trail.read_text().splitlines()
    trail.write_text("".join(l + "\n" for l in tamper(lines)))
    plain = inst.run("audit", "verify")
    assert plain.returncode == 0 and "intact" in plain.stdout, plain.stdout + plain.stderr  # what today's check sees
    v = verify(inst, rsyslog.rfc5424)
    assert v.returncode == 1, v.stdout + v.stderr
    assert "tampered" in v.stderr and finding in v.stderr, v.stderr


async def test_a_forged_anchor_for_the_shortened_trail_adds_no_trust(tmp_path, rsyslog):
    inst, trail = await anchored_trail(tmp_path, rsyslog)
    lines = trail.read_text().splitlines()[:-2]
    trail.write_text("".join(l + "\n" for l in lines))
    head = json.loads(lines[-1])
    genuine = next(l for l in rsyslog.rfc5424.read_text().splitlines() if 'reason="stop"' in l)
    trail_id = genuine.split('trail="')[1].split('"')[0]
    forged = (f"<85>1 2030-01-01T00:00:00.000Z host spock-tui 1 anchor - audit anchor trail={trail_id} "
              f"run=forged seq={head['seq']} hash={line_hash(lines[-1])} reason=stop")
    rsyslog.send(forged)
    rsyslog.wait_for("run=forged")
    v = verify(inst, rsyslog.rfc5424)
    assert v.returncode == 1, v.stdout + v.stderr
    assert "removed from its end" in v.stderr, v.stderr
