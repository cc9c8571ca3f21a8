"""The control centre's resources with 10,000 history entries: resident memory (VmRSS), idle
CPU over 60 s (utime+stime from /proc/PID/stat), and start-up time to accepting connections
(for the control centre and for headless `serve`). Frame time is `cargo bench --bench tui`.

    python3 benches/tui_resources.py --calls 10000 --idle 60 --starts 5

The history is real: a headless spock-tui is sent 10,000 `spock_get_status` calls (bounded),
which its audit trail records; the control centre then starts on that home in a private tmux
server (-L, no user session touched), sized 200×60, and shows its History screen.
"""
import argparse
import json
import os
import pathlib
import shlex
import socket
import subprocess
import tempfile
import time
import uuid

from common import EXE, MiniHttp, start_instance, summary_ms, write_json

TICK = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])  # utime, stime (fields 14, 15)


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(("VmRSS", "VmHWM")):
            yield line.split(":")[0], int(line.split()[1])


def accepting(desc: pathlib.Path):
    """True once the descriptor names an HTTP endpoint that accepts a TCP connection."""
    try:
        d = json.loads(desc.read_text())
        host, port = d["http"].split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except (FileNotFoundError, json.JSONDecodeError, KeyError, OSError, ValueError):
        return False


class Tmux:
    def __init__(self, home, w=200, h=60):
        self.sock = f"spock-bench-{uuid.uuid4().hex[:8]}"
        cmd = f"env SPOCK_TUI_HOME={shlex.quote(str(home))} TERM=xterm-256color {shlex.quote(EXE)} --port 0"
        self.run("new-session", "-d", "-s", "tui", "-x", str(w), "-y", str(h), cmd)

    def run(self, *a):
        return subprocess.run(["tmux", "-L", self.sock, *a], capture_output=True, text=True, timeout=10)

    def pid(self):
        return int(self.run("display-message", "-p", "-t", "tui", "#{pane_pid}").stdout.strip())

    def kill(self):
        self.run("kill-server")


def fill(home, calls, seconds):
    inst = start_instance(home.parent, home=home)
    try:
        h = MiniHttp(inst.url, inst.token)
        end = time.monotonic() + seconds
        n = 0
        while n < calls and time.monotonic() < end:
            h.call("spock_get_status", {}, n)
            n += 1
        h.close()
    finally:
        inst.stop()
    audit = home / "data" / "audit" / "audit.jsonl"
    if not audit.exists():
        found = list(home.rglob("audit.jsonl"))
        audit = found[0] if found else audit
    lines = sum(1 for _ in open(audit)) if audit.exists() else 0
    return n, str(audit), lines


def start_times(home, n, tui):
    out = []
    desc = home / "run" / "endpoint.json"
    for _ in range(n):
        desc.unlink(missing_ok=True)
        t0 = time.perf_counter()
        if tui:
            t = Tmux(home)
        else:
            p = subprocess.Popen([EXE, "serve", "--port", "0"], env={**os.environ, "SPOCK_TUI_HOME": str(home)},
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 30
        while not accepting(desc) and time.monotonic() < end:
            time.sleep(0.002)
        out.append(time.perf_counter() - t0)
        if tui:
            t.kill()
        else:
            p.terminate()
            p.wait(timeout=10)
        time.sleep(0.3)
    return summary_ms(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=10000)
    ap.add_argument("--idle", type=int, default=60)
    ap.add_argument("--starts", type=int, default=5)
    a = ap.parse_args()
    calls, idle, starts = min(a.calls, 50000), max(1, min(a.idle, 600)), max(1, min(a.starts, 20))
    res = {}
    with tempfile.TemporaryDirectory() as td:
        home = pathlib.Path(td) / "home"
        t0 = time.monotonic()
        n, audit, lines = fill(home, calls, 600)
        res["history"] = {"calls": n, "audit": audit, "audit_lines": lines, "fill_seconds": time.monotonic() - t0}
        print("history", res["history"], flush=True)
        tm = Tmux(home)
        try:
            desc = home / "run" / "endpoint.json"
            end = time.monotonic() + 30
            while not accepting(desc) and time.monotonic() < end:
                time.sleep(0.05)
            pid = tm.pid()
            time.sleep(3)
            tm.run("send-keys", "-t", "tui", "4")  # History screen
            time.sleep(2)
            screen = tm.run("capture-pane", "-p", "-t", "tui").stdout
            res["rss_after_start_kb"] = dict(rss_kb(pid))
            c0, w0 = cpu_ticks(pid), time.monotonic()
            time.sleep(idle)
            c1, w1 = cpu_ticks(pid), time.monotonic()
            res["idle"] = {"seconds": w1 - w0, "cpu_seconds": (c1 - c0) / TICK,
                           "cpu_percent": 100 * (c1 - c0) / TICK / (w1 - w0), "screen": "history"}
            res["rss_after_idle_kb"] = dict(rss_kb(pid))
            res["history_screen_excerpt"] = screen.splitlines()[:8]
            print("rss", res["rss_after_start_kb"], "idle", res["idle"], flush=True)
        finally:
            tm.kill()
        time.sleep(0.5)
        res["startup_tui_10k_history"] = start_times(home, starts, tui=True)
        res["startup_serve_10k_history"] = start_times(home, starts, tui=False)
        empty = pathlib.Path(td) / "empty"
        empty.mkdir()
        res["startup_serve_empty_home"] = start_times(empty, starts, tui=False)
        for k in ("startup_tui_10k_history", "startup_serve_10k_history", "startup_serve_empty_home"):
            print(k, round(res[k]["median"], 1), "ms", flush=True)
    print("wrote", write_json("tui_resources", res))


if __name__ == "__main__":
    main()
