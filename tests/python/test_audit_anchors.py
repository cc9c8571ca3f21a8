"""The audit trail anchored in a real syslog daemon, attacked by the server's own user (issue 33).

The setup (audit_tamper.py) creates the non-root user `spock-audit-test` and runs the server, its
relay and every tampering step as that user; Debian's rsyslogd runs as root and writes the
anchors to root:adm 0640 files, as Debian's rsyslog.conf does, which the user can neither read
nor change nor delete (asserted below). Without root the module skips.

Each row of the issue's table is a test: `audit verify` without `--anchors` (what a binary
without anchors has) calls the tampered trail intact, asserted in the test, and `audit verify
--anchors` exits 1 naming the finding. The swapped records are the exception: the chain alone
catches them, kept as a regression.

Who verifies: the issue's admin is root, who can read the log; root verifies the user's trail
against the log itself (SPOCK_AUDIT_VERIFY_AS_ROOT=0: the user, with a read-only copy of it).

Also here: the oldest records deleted below the cap (told from a deletion at the cap), forged
lines in audit.kept.jsonl, a torn line told apart as crash or tampering, the server reading the
last anchor at start."""
import json
import os
import socket

import mcp_types as types
import pytest
from audit_tamper import LOGGER, Lab, Trail, line_hash, mode_of, skip_reason
from conftest import call

pytestmark = pytest.mark.anyio

# Root (who can read the log) verifies the user's trail; SPOCK_AUDIT_VERIFY_AS_ROOT=0 verifies as
# the user against a read-only copy of the log instead.
VERIFY_AS_ROOT = os.environ.get("SPOCK_AUDIT_VERIFY_AS_ROOT", "1") == "1"
VIA_CLIENT = "[confirm]\nvia_client = true\n"
NOTES = {"packageName": "com.example.notes"}


@pytest.fixture(scope="module")
def lab():
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    lab = Lab()
    yield lab
    lab.close()


async def approve(ctx, params):
    """The MCP client's person says yes (elicitation, `[confirm] via_client`)."""
    return types.ElicitResult(action="accept", content={"approve": True})


async def reads(c, n):
    for _ in range(n):
        err, r = await call(c, "android_get_battery_info")
        assert not err, r


async def denied_trail(lab, tmp_path, name, after=2):
    """Reads, a denied uninstall (no one to approve it), `after` more reads; stopped, its stop
    anchor in the syslog."""
    s = lab.server(tmp_path, name)
    try:
        async with s.client() as c:
            await reads(c, 3)
            err, r = await call(c, "android_uninstall_app", NOTES)
            assert err and r["kind"] == "denied", r
            await reads(c, after)
    finally:
        s.stop()
    s.wait_for_anchor("stop")
    return s


async def approved_trail(lab, tmp_path, name, server=None):
    """A read, two approved `android_clear_app_data`, a read; stopped (`server`: a restart of it)."""
    s = lab.server(tmp_path, name, config=VIA_CLIENT, home=server)
    try:
        async with s.client(elicitation_callback=approve) as c:
            await reads(c, 1)
            for _ in range(2):
                err, r = await call(c, "android_clear_app_data", NOTES)
                assert not err and r["result"] == "Success", r
            await reads(c, 1)
    finally:
        s.stop()
    s.wait_for_anchor("stop", after=0 if server is None else 1)
    return s


def plain_verify(s):
    """`audit verify` without anchors: all a binary without anchors can do."""
    return s.run("audit", "verify")


def verify(lab, s, name):
    if VERIFY_AS_ROOT:
        return s.run_as_root("audit", "verify", "--anchors", str(lab.rsyslog.rfc5424))
    return s.run("audit", "verify", "--anchors", str(lab.handed_over(lab.rsyslog.rfc5424, name)))


def assert_blind_then_caught(lab, s, name, *findings):
    plain = plain_verify(s)
    assert plain.returncode == 0 and "intact" in plain.stdout, plain.stdout + plain.stderr
    v = verify(lab, s, name)
    assert v.returncode == 1, v.stdout + v.stderr
    assert "tampered" in v.stderr and all(f in v.stderr for f in findings), v.stderr
    return v


# --- the setup itself -------------------------------------------------------------------------

def probe_anchor_files(paths):
    """Run as the user: what it can do to root's anchor files and their directory."""
    out = {"uid": os.getuid(), "euid": os.geteuid(), "groups": os.getgroups()}
    for p in paths:
        tried = {}
        for what, act in (("read", lambda: open(p).read()),
                          ("append", lambda: open(p, "a").write("x\n")),
                          ("truncate", lambda: os.truncate(p, 0)),
                          ("delete", lambda: os.unlink(p)),
                          ("rename", lambda: os.rename(p, str(p) + ".moved")),
                          ("chmod", lambda: os.chmod(p, 0o666)),
                          ("create beside", lambda: open(os.path.join(os.path.dirname(p), "forged.log"), "w"))):
            try:
                act()
                tried[what] = "done"
            except PermissionError:
                tried[what] = "refused"
        out[str(p)] = tried
    return out


def proc_status(pid) -> dict:
    lines = open(f"/proc/{pid}/status").read().splitlines()
    return {k: v.split() for k, v in (l.split(":", 1) for l in lines)}


async def test_the_server_and_tamperer_run_as_the_user_and_the_anchor_files_are_out_of_its_reach(tmp_path, lab):
    pw = lab.pw
    s = lab.server(tmp_path, "reach")
    try:
        st = proc_status(s.proc.pid)
        assert st["Uid"] == [str(pw.pw_uid)] * 4 and st["Gid"] == [str(pw.pw_gid)] * 4, st
        assert st.get("Groups", []) == [] and int(st["CapEff"][0], 16) == 0 and int(st["CapPrm"][0], 16) == 0, st
        async with s.client() as c:
            await reads(c, 3)
            err, r = await call(c, "android_uninstall_app", NOTES)
            assert err and r["kind"] == "denied", r
    finally:
        s.stop()
    s.wait_for_anchor("stop")
    for f in ("audit.jsonl", "audit.state.json"):
        assert mode_of(s.audit_dir / f)[:2] == (pw.pw_uid, pw.pw_gid), f
    rec = json.loads((s.audit_dir / "audit.jsonl").read_text().splitlines()[0])
    assert rec["verified"]["peer"]["uid"] == pw.pw_uid, rec  # the relay (the agent's side) too
    files = [lab.rsyslog.rfc5424, lab.rsyslog.traditional]
    for f in files:
        assert mode_of(f) == (0, 4, 0o640), (f, mode_of(f))  # root:adm 0640, Debian's rsyslog.conf
    assert mode_of(lab.rsyslog.dir) == (0, 0, 0o755)
    before = [f.read_bytes() for f in files]
    seen = lab.as_user(probe_anchor_files, [str(f) for f in files])
    assert (seen["uid"], seen["euid"], seen["groups"]) == (pw.pw_uid, pw.pw_uid, []), seen  # not in adm
    for f in files:
        assert set(seen[str(f)].values()) == {"refused"}, seen
    assert [f.read_bytes() for f in files] == before
    # ...while the trail itself is the user's to rewrite.
    assert lab.tamper(s, lambda t: len(t.lines())) == 4


async def test_an_honest_trail_agrees_with_its_anchors_and_plain_verify_says_what_it_cannot_see(tmp_path, lab):
    s = await denied_trail(lab, tmp_path, "honest")
    for source in (lab.rsyslog.rfc5424, lab.rsyslog.traditional):
        v = (s.run_as_root("audit", "verify", "--anchors", str(source)) if VERIFY_AS_ROOT
             else s.run("audit", "verify", "--anchors", str(lab.handed_over(source, "honest"))))
        assert v.returncode == 0, v.stdout + v.stderr
        assert "intact" in v.stdout and "agrees with" in v.stdout and "agrees with 0 " not in v.stdout, v.stdout
    mine = [l for l in lab.rsyslog.lines() if f'trail="{s.trail}"' in l]
    assert any('reason="start"' in l for l in mine) and any('reason="record"' in l for l in mine), mine
    plain = plain_verify(s)
    assert plain.returncode == 0 and "cannot detect records deleted from the end" in plain.stdout, plain.stdout


async def test_root_verifies_the_users_trail_against_the_log_only_root_can_read(tmp_path, lab):
    s = await denied_trail(lab, tmp_path, "root-verifies")
    v = s.run_as_root("audit", "verify", "--anchors", str(lab.rsyslog.rfc5424))
    assert v.returncode == 0 and "agrees with" in v.stdout and "agrees with 0 " not in v.stdout, v.stdout + v.stderr
    lab.tamper(s, lambda t: t.delete_newest(1))
    v = s.run_as_root("audit", "verify", "--anchors", str(lab.rsyslog.rfc5424))
    assert v.returncode == 1 and "removed from its end" in v.stderr, v.stdout + v.stderr


# --- the table's rows -------------------------------------------------------------------------

def denied_rewritten_as_ok(t: Trail):
    def ok_battery_read(r):
        r.update(tool="android_get_battery_info", level="read_only", outcome="ok", arguments={})
        for k in ("decision", "decider", "error"):
            r.pop(k, None)

    assert t.rewrite(lambda r: r.get("outcome") == "denied", ok_battery_read) == 1


def delete_newest(n):
    return lambda t: t.delete_newest(n)


DENIED_TRAIL_ROWS = {
    "newest record deleted": (delete_newest(1), "removed from its end"),
    "newest five deleted": (delete_newest(5), "removed from its end"),
    "emptied": (Trail.empty, "holds none: it was emptied or deleted"),
    "deleted": (Trail.remove, "holds none: it was emptied or deleted"),
    "denied rewritten as an ok battery read, chain recomputed": (denied_rewritten_as_ok, "was rewritten"),
    "every prev removed": (Trail.strip_prev, "the chain was stripped"),
}


@pytest.mark.parametrize("row", list(DENIED_TRAIL_ROWS))
async def test_tampering_the_chain_hides_is_caught_by_the_anchors(tmp_path, lab, row):
    tamper, finding = DENIED_TRAIL_ROWS[row]
    s = await denied_trail(lab, tmp_path, row.split(",")[0].replace(" ", "-"))
    lab.tamper(s, tamper)
    assert_blind_then_caught(lab, s, "row", finding)


async def test_truncated_in_the_middle_of_the_anchored_last_record(tmp_path, lab):
    s = await denied_trail(lab, tmp_path, "torn", after=0)
    cut = lab.tamper(s, Trail.truncate_mid_last)
    last = lab.tamper(s, lambda t: t.live.read_text())
    assert not last.endswith("\n") and f'"seq":{cut}' in last.rsplit("\n", 1)[-1]
    anchored = s.wait_for_anchor("record")
    assert f'seq="{cut}"' in anchored, anchored  # the torn record was the denied one, anchored
    plain = plain_verify(s)
    assert f"intact: {cut - 1} records" in plain.stdout, plain.stdout  # a torn last line passes for a write in progress
    assert_blind_then_caught(lab, s, "torn", f"anchored but the trail ends at seq {cut - 1}: records were removed from its end",
                             f"the last record (seq {cut}) is cut mid-record, and it was anchored")


async def test_a_torn_last_line_never_anchored_is_a_crash_artefact_not_tampering(tmp_path, lab):
    """What a process killed in the middle of writing a record leaves: half a line whose seq
    was never anchored. Not tampering, and said so."""
    s = await denied_trail(lab, tmp_path, "crash", after=2)

    def half_a_record(t: Trail):
        last = t.records()[-1]
        nxt = {**last, "seq": last["seq"] + 1, "prev": line_hash(t.lines()[-1])}
        text = json.dumps(nxt, separators=(",", ":"))
        with open(t.live, "a") as f:
            f.write(text[: len(text) // 2])
        return nxt["seq"]

    seq = lab.tamper(s, half_a_record)
    v = verify(lab, s, "crash")
    assert v.returncode == 0, v.stdout + v.stderr
    assert f"the last line (seq {seq}) is torn and was never anchored: a crash artefact" in v.stdout, v.stdout


def anchored_run_and_cap(lab, s):
    """What the user can read of the real run: its id (state file) and its cap (config: 1024 MiB)."""
    st = lab.tamper(s, lambda t: json.loads(t.state.read_text()))
    return st["run"], 1024 * 1024 * 1024


@pytest.mark.parametrize("forged_cap_anchor", [False, True])
async def test_the_oldest_records_deleted_below_the_cap_are_not_taken_for_a_cap_deletion(tmp_path, lab, forged_cap_anchor):
    """The table's second row: the oldest 5 deleted, the cap never reached. Before anchors,
    verify said intact and that the cap had deleted them; a cap anchor forged under the real
    run's id and cap does not make it so (the anchored, hash-fixed trail is far below the cap)."""
    s = await denied_trail(lab, tmp_path, "oldest" + ("-forged-cap" if forged_cap_anchor else ""))
    lab.tamper(s, lambda t: t.delete_oldest(5))
    plain = plain_verify(s)
    assert plain.returncode == 0 and "the trail starts at record 6" in plain.stdout, plain.stdout
    if forged_cap_anchor:
        run, cap = anchored_run_and_cap(lab, s)
        last = lab.tamper(s, Trail.lines)[-1]
        seq, h = json.loads(last)["seq"], line_hash(last)
        msg = (f'<85>1 2030-01-01T00:00:00.000Z host spock-tui 1 anchor [spock@32473 trail="{s.trail}" run="{run}" '
               f'seq="{seq}" hash="{h}" time="2030-01-01T00:00:00.000Z" reason="cap" cap="{cap}" first="6"] audit anchor '
               f'trail={s.trail} run={run} seq={seq} hash={h} time=2030-01-01T00:00:00.000Z reason=cap cap={cap} first=6')
        lab.as_user(send_frame, lab.rsyslog.port, msg)
        lab.rsyslog.wait_for('reason="cap"', f'run="{run}"')
        findings = ("deleted by hand", "no deletion at the cap leaves so little")
    else:
        findings = ("deleted by hand", "no deletion at the size cap was anchored")
    v = assert_blind_then_caught(lab, s, "oldest", *findings,
                                 "seq 4 was anchored as a destructive, denied or refused record and is gone")
    assert "deleted at the size cap" not in v.stdout + v.stderr


async def test_forged_lines_in_the_kept_file_are_caught(tmp_path, lab):
    """The kept file is History's source for records the cap deleted; verify never read it. Its
    lines are the trail's lines byte for byte, and each kept record was anchored as written."""
    s = await denied_trail(lab, tmp_path, "kept")

    def forge(t: Trail):
        recs = t.records()
        denied = next(r for r in recs if r["outcome"] == "denied")
        # "seq 2 was a denied uninstall": a record that never was, in History's kept list.
        t.kept_append(json.dumps({**denied, "seq": 2, "arguments": {"packageName": "com.bank"}},
                                 separators=(",", ":")))
        # and the real denied record, copied with its outcome turned to ok.
        t.kept_append(json.dumps({**denied, "outcome": "ok", "decision": None}, separators=(",", ":")))

    lab.tamper(s, forge)
    assert_blind_then_caught(lab, s, "kept", "the kept file holds seq 2, which was never anchored",
                             "the kept file's record seq 4 hashes to")


async def test_a_restart_reads_the_last_anchor_and_numbers_on_after_it(tmp_path, lab):
    """With the anchors readable (`audit.anchor_source`), a restart after the newest records were
    dropped and the state file deleted continues after the last anchored seq: no seq is reused,
    and it says where it continued from."""
    s = await approved_trail(lab, tmp_path, "resume")
    highest = max(int(l.split('seq="')[1].split('"')[0]) for l in lab.rsyslog.lines() if f'trail="{s.trail}"' in l)
    assert highest == 6, highest  # a read, two approved calls (started, ending), a read

    def drop(t: Trail):
        t.delete_newest(2)
        t.remove_state()

    lab.tamper(s, drop)
    source = lab.handed_over(lab.rsyslog.rfc5424, "resume")
    conf = f'[audit]\nanchor = "tcp:127.0.0.1:{lab.rsyslog.port}"\nanchor_source = "{source}"\n{VIA_CLIENT}'
    lab.as_user(lambda: (s.home / "config" / "config.toml").write_text(conf))
    s2 = await approved_trail(lab, tmp_path, "resume", server=s)
    seqs = [r["seq"] for r in lab.tamper(s2, Trail.records)]
    assert seqs == [1, 2, 3, 4, 7, 8, 9, 10, 11, 12], seqs  # after the anchored 6, not the file's 4
    log = "".join(p.read_text(errors="replace") for p in s2.home.rglob("*.log"))
    assert "continuing after seq 6 from the last anchor" in log, log[-2000:]
    plain = plain_verify(s2)
    assert plain.returncode == 1 and "seq 5..=6 are missing" in plain.stderr, plain.stdout + plain.stderr


def approved_rewritten_as_denied(t: Trail):
    """Each approved call made to look denied: its `started` record dropped (a denied call has
    none), its ending rewritten, the rest renumbered and the chain recomputed."""
    def denied(r):
        r.update(outcome="denied", decision={"approved": False, "by": "client"},
                 error="declined through the MCP client")
        r.pop("result", None)
        r.pop("started", None)

    started = {r["seq"] for r in t.records() if r.get("outcome") == "started"}
    assert len(started) == 2, t.records()
    t.delete_seqs(started)
    assert t.rewrite(lambda r: r.get("level") == "destructive" and r.get("outcome") == "ok", denied) == 2


async def test_approved_destructive_records_rewritten_as_denied_chain_recomputed(tmp_path, lab):
    s = await approved_trail(lab, tmp_path, "approved-as-denied")
    lab.tamper(s, approved_rewritten_as_denied)
    recs = lab.tamper(s, Trail.records)
    assert [r["outcome"] for r in recs] == ["ok", "denied", "denied", "ok"], recs
    assert_blind_then_caught(lab, s, "approved-as-denied", "seq 2 was rewritten", "seq 3 was rewritten",
                             "removed from its end")


def forge_state(how):
    return {"state file deleted": Trail.remove_state,
            "state file rewritten to the forged head": Trail.state_to_head,
            "state file left": lambda t: None}[how]


@pytest.mark.parametrize("state", ["state file deleted", "state file rewritten to the forged head", "state file left"])
async def test_server_stopped_two_destructive_records_dropped_chain_redone_restarted(tmp_path, lab, state):
    s = await approved_trail(lab, tmp_path, "restart")
    before = lab.tamper(s, Trail.records)
    # Each approved call is two records: `started` (synced before it ran) and its ending.
    destructive = [r["seq"] for r in before if r["level"] == "destructive"]
    assert destructive == [2, 3, 4, 5], before

    def drop(t: Trail):
        t.delete_seqs(set(destructive))  # the rest renumbered, the chain recomputed
        forge_state(state)(t)

    lab.tamper(s, drop)
    plain = plain_verify(s)
    assert plain.returncode == 0 and "intact: 2 records" in plain.stdout, plain.stdout
    # Restarted on the forged file: it continues the chain and makes new calls.
    s2 = await approved_trail(lab, tmp_path, "restart", server=s)
    lines = lab.tamper(s2, Trail.lines)
    after = [json.loads(l) for l in lines]
    assert len(after) == 8 and all(r["prev"] == line_hash(p) for p, r in zip(lines, after[1:])), lines
    if state == "state file left":
        # The restarted server numbers on after the state file's seq 6: the gap 3..=6 in a
        # chain that holds is itself the sign (an honest writer numbers every record it writes).
        assert [r["seq"] for r in after] == [1, 2, 7, 8, 9, 10, 11, 12], after
        plain = plain_verify(s2)
        assert plain.returncode == 1 and "seq 3..=6 are missing" in plain.stderr, plain.stdout + plain.stderr
        assert "the chain made to run over the gap" in plain.stderr, plain.stderr
        v = verify(lab, s2, "restart")
        assert v.returncode == 1, v.stdout + v.stderr
        return
    else:
        # The restarted server numbers on from the forged head: seqs 2-4 come back with other
        # records; its start anchor names seq 2 with the forged hash, run 1 anchored the original.
        assert [r["seq"] for r in after] == [1, 2, 3, 4, 5, 6, 7, 8], after
        findings = ("seq 2 was anchored with two different hashes", "seq 4 was anchored with two different hashes")
    assert_blind_then_caught(lab, s2, "restart", *findings)


async def test_two_records_swapped_nothing_recomputed_is_caught_by_the_chain_alone(tmp_path, lab):
    """The one row today's binary catches: kept as a regression, with and without anchors."""
    s = await denied_trail(lab, tmp_path, "swapped")
    lab.tamper(s, lambda t: t.swap(1, 2))
    plain = plain_verify(s)
    assert plain.returncode == 1 and "broken after 1 intact records" in plain.stderr, plain.stdout + plain.stderr
    v = verify(lab, s, "swapped")
    assert v.returncode == 1 and "broken" in v.stderr, v.stdout + v.stderr


# --- forged anchors ---------------------------------------------------------------------------

def send_frame(port, msg):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(f"{len(msg.encode())} {msg}".encode())


def forge_by_frame(lab, s, seq, hash_):
    """An RFC 5424 frame written by hand, sent to the collector by a process of the user."""
    msg = (f'<85>1 2030-01-01T00:00:00.000Z host spock-tui 1 anchor [spock@32473 trail="{s.trail}" run="forged" '
           f'seq="{seq}" hash="{hash_}" time="2030-01-01T00:00:00.000Z" reason="stop"] audit anchor '
           f'trail={s.trail} run=forged seq={seq} hash={hash_} time=2030-01-01T00:00:00.000Z reason=stop')
    lab.as_user(send_frame, lab.rsyslog.port, msg)


def forge_by_logger(lab, s, seq, hash_):
    """`logger -t spock-tui` to the collector (RFC 5424 over TCP, octet counted), run as the user."""
    pairs = dict(trail=s.trail, run="forged", seq=seq, hash=hash_, time="2030-01-01T00:00:00.000Z", reason="stop")
    sd = [a for k, v in pairs.items() for a in ("--sd-param", f'{k}="{v}"')]
    text = "audit anchor " + " ".join(f"{k}={v}" for k, v in pairs.items())
    r = lab.user_cmd(s, LOGGER, "--server", "127.0.0.1", "--port", str(lab.rsyslog.port), "--tcp", "--octet-count",
                     "--rfc5424", "-p", "authpriv.notice", "-t", "spock-tui", "--msgid", "anchor",
                     "--sd-id", "spock@32473", *sd, text)
    assert r.returncode == 0, r.stdout + r.stderr


FORGERS = {"hand-made frame": forge_by_frame}
if LOGGER:
    FORGERS["logger"] = forge_by_logger


@pytest.mark.parametrize("forger", list(FORGERS))
async def test_a_forged_anchor_for_the_shortened_trail_adds_no_trust(tmp_path, lab, forger):
    s = await denied_trail(lab, tmp_path, f"forged-{forger.split()[0]}")

    def shorten(t: Trail):
        t.delete_newest(2)
        lines = t.lines()
        return json.loads(lines[-1])["seq"], line_hash(lines[-1])

    seq, hash_ = lab.tamper(s, shorten)
    FORGERS[forger](lab, s, seq, hash_)
    lab.rsyslog.wait_for(f"trail={s.trail}", "run=forged")
    v = assert_blind_then_caught(lab, s, "forged", "removed from its end")
    assert "anchors of 2 server runs" in v.stderr, v.stderr  # the forgery was read as this trail's, and outweighed


def test_the_tamper_helper_keeps_its_promises(tmp_path):
    """`Trail` (audit_tamper.py) on a file of its own: what the tests above and the rows still to
    come (oldest deleted, kept file forged) rely on. Runs as anyone."""
    d = tmp_path / "audit"
    d.mkdir()
    t = Trail(d)
    t.write_records([{"seq": i, "tool": "t", "level": "read_only", "outcome": "ok"} for i in range(1, 8)])

    def chained(lines):
        return all(json.loads(b)["prev"] == line_hash(a) for a, b in zip(lines, lines[1:]))

    assert chained(t.lines()) and json.loads(t.lines()[0])["prev"] == "0" * 64
    t.delete_oldest(2)
    assert [r["seq"] for r in t.records()] == [3, 4, 5, 6, 7] and chained(t.lines())
    t.delete_seqs({4})
    assert [r["seq"] for r in t.records()] == [3, 4, 5, 6] and chained(t.lines())
    t.swap(0, 1)
    assert [r["seq"] for r in t.records()] == [4, 3, 5, 6] and not chained(t.lines())
    t.rewrite(4, lambda r: r.update(outcome="denied"))
    assert t.records()[0]["outcome"] == "denied" and chained(t.lines())
    t.kept_append('{"seq":1}')
    assert t.kept.read_text() == '{"seq":1}\n'
    assert t.truncate_mid_last() == 6 and not t.live.read_text().endswith("\n")
