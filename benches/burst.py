"""A screenshot burst: N clients taking default screenshots (the conversion path: decode,
downscale, JPEG) as fast as they can for a bounded time, while one more client times a cheap
read-only call. Reports that call's latency before and during the burst, the server's peak
memory, its resident memory right after the burst and after 30 s idle.

    python3 benches/burst.py --clients 16 --seconds 15 --idle 30

Uses the release build (or $SPOCK_TUI_BIN) serving `--demo`; all traffic stays on 127.0.0.1.
"""
import argparse
import statistics
import tempfile
import threading
import time
import pathlib

from common import Deadline, MiniHttp, start_instance, summary_ms, write_json


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def cheap_latencies(url, token, stop: threading.Event, out: list, limit: float):
    c = MiniHttp(url, token)
    end = time.monotonic() + limit
    i = 0
    while not stop.is_set() and time.monotonic() < end:
        i += 1
        t = time.perf_counter()
        c.call("android_get_battery_info", {}, i)
        out.append(time.perf_counter() - t)
        time.sleep(0.005)
    c.close()


def shooter(url, token, stop: threading.Event, count: list, errors: list, limit: float):
    c = MiniHttp(url, token)
    end = time.monotonic() + limit
    i = 0
    while not stop.is_set() and time.monotonic() < end:
        i += 1
        r = c.call("android_take_screenshot", {}, i)
        if r.get("result", {}).get("isError") or "error" in r:
            errors.append(str(r)[:200])
        count.append(1)
    c.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("--idle", type=float, default=30)
    a = ap.parse_args()
    deadline = Deadline(a.seconds * 3 + a.idle + 120)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="spock-burst-"))
    inst = start_instance(tmp, "--demo")
    pid = inst.proc.pid
    try:
        url, token = inst.url, inst.token
        warm = MiniHttp(url, token)
        warm.call("android_take_screenshot", {}, 1)
        warm.close()
        rss_start = rss_kib(pid)

        quiet = []
        stop = threading.Event()
        cheap_latencies(url, token, stop, quiet, min(5.0, a.seconds))

        busy, shots, errors = [], [], []
        stop = threading.Event()
        threads = [threading.Thread(target=shooter, args=(url, token, stop, shots, errors, a.seconds))
                   for _ in range(a.clients)]
        for t in threads:
            t.start()
        time.sleep(1.0)  # let the burst build up
        peak = 0
        timer = threading.Thread(target=cheap_latencies, args=(url, token, stop, busy, a.seconds))
        timer.start()
        end = time.monotonic() + a.seconds
        while time.monotonic() < end and deadline.left():
            peak = max(peak, rss_kib(pid))
            time.sleep(0.2)
        stop.set()
        for t in threads + [timer]:
            t.join(timeout=60)
        rss_after = rss_kib(pid)
        time.sleep(a.idle)
        rss_idle = rss_kib(pid)
        hwm = rss_kib(pid, "VmHWM")
        result = {
            "clients": a.clients,
            "seconds": a.seconds,
            "screenshots": len(shots),
            "screenshot_errors": len(errors),
            "first_errors": errors[:3],
            "cheap_call_quiet_ms": summary_ms(quiet),
            "cheap_call_during_burst_ms": summary_ms(busy) if busy else None,
            "rss_start_mib": rss_start / 1024,
            "rss_peak_sampled_mib": peak / 1024,
            "rss_hwm_mib": hwm / 1024,
            "rss_after_burst_mib": rss_after / 1024,
            f"rss_after_{int(a.idle)}s_idle_mib": rss_idle / 1024,
        }
        p = write_json("burst", result)
        q = statistics.median(quiet) * 1000
        b = statistics.median(busy) * 1000 if busy else float("nan")
        print(f"burst: {a.clients} clients, {len(shots)} screenshots in {a.seconds:.0f} s "
              f"({len(errors)} errors); cheap call p50 {q:.1f} ms quiet, {b:.1f} ms during; "
              f"RSS start {rss_start/1024:.0f} MiB, peak {hwm/1024:.0f} MiB, after {rss_after/1024:.0f} MiB, "
              f"after {a.idle:.0f} s idle {rss_idle/1024:.0f} MiB  ({p})")
    finally:
        inst.stop()


if __name__ == "__main__":
    main()
