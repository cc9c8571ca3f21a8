"""Goal 4: what root's `audit verify --anchors` does with files the user planted in its own audit
dir: FIFOs (hang?), symlinks to /dev/zero (unbounded memory?), a symlink to a root-only file
(root reads it: disclosure?), a sparse multi-GB line with no newline, a directory in a file's place.
Each case: honest trail, one plant, verify run as root with a 20 s timeout and RSS measured."""
import os, resource
from lab import *

CASES = {
    "live audit.jsonl -> FIFO": lambda t: (t.live.unlink(), os.mkfifo(t.live)),
    "audit.1.jsonl FIFO beside": lambda t: os.mkfifo(t.dir / "audit.1.jsonl"),
    "audit.kept.jsonl FIFO": lambda t: os.mkfifo(t.kept),
    "audit.state.json FIFO": lambda t: (t.state.unlink(), os.mkfifo(t.state)),
    "audit.kept.jsonl -> /dev/zero": lambda t: os.symlink("/dev/zero", t.kept),
    "audit.1.jsonl -> /dev/zero": lambda t: os.symlink("/dev/zero", t.dir / "audit.1.jsonl"),
    "audit.1.jsonl -> /etc/shadow": lambda t: os.symlink("/etc/shadow", t.dir / "audit.1.jsonl"),
    "audit.kept.jsonl -> /etc/shadow": lambda t: os.symlink("/etc/shadow", t.kept),
    "live audit.jsonl -> /etc/shadow": lambda t: (t.live.unlink(), os.symlink("/etc/shadow", t.live)),
    "audit.1.jsonl sparse 3 GiB, no newline": lambda t: os.truncate(open(t.dir / "audit.1.jsonl", "w").name, 3 << 30),
    "audit.kept.jsonl sparse 3 GiB of NULs": lambda t: os.truncate(open(t.kept, "w").name, 3 << 30),
    "audit.1.jsonl is a directory": lambda t: os.mkdir(t.dir / "audit.1.jsonl"),
    "audit dir 0000 (root still reads)": lambda t: None,
}

def run_verify(lab, s):
    t0 = time.monotonic()
    p = subprocess.Popen([lab.exe, "audit", "verify", "--anchors", str(lab.rsyslog.rfc5424)],
                         env={**os.environ, "SPOCK_TUI_HOME": str(s.home)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=20)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill(); out, err = p.communicate(); rc = "HUNG(killed after 20s)"
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return rc, time.monotonic() - t0, ru.ru_maxrss, (out + err).strip()

async def main():
    lab = Lab(); tmp = tmpdir()
    only = sys.argv[1:] or list(CASES)
    try:
        for name in only:
            s = lab.server(tmp, "v" + str(abs(hash(name)) % 1000), config=VIA_CLIENT)
            async with s.client(elicitation_callback=approve) as c:
                await reads(c, 1)
                err, r = await call(c, "android_clear_app_data", NOTES)
            stop(s); s.wait_for_anchor("stop")
            lab.tamper(s, CASES[name])
            rc, dt, rss, out = run_verify(lab, s)
            print(f"=== {name}: exit {rc} in {dt:.1f}s, max child RSS so far {rss//1024} MiB\n{out[:700]}\n")
    finally:
        lab.close()
asyncio.run(main())
