"""The limit: each tool's latency against the raw adb round trips of the very requests it
sends, through the same real Debian `adb` server to the same virtual device.

    python3 benches/limit.py --rounds 60

1. Record: a headless spock-tui whose `--adb` points at a recording proxy in front of the adb
   server; each tool is called once (after a warm-up) and the smart-socket requests it made
   are kept, grouped into waves (sequential) of concurrent connections.
2. Measure: a second headless spock-tui pointed straight at the adb server. Per round, the
   tool over HTTP (2026-07-28 stateless POST on a kept-alive socket, the thinnest client) and a
   replay of its recorded requests by a minimal Python smart-socket client, interleaved.
Overhead per call = median(tool) − median(raw). `spock_get_status` (no device) is the floor of
the HTTP + JSON-RPC + call pipeline alone.
"""
import argparse
import pathlib
import statistics
import tempfile
import time

from adbwire import Recorder, replay, waves
from common import DEMO, Deadline, MiniHttp, RealAdb, start_instance, summary_ms, write_json

OPS = [
    ("list devices", "android_list_devices", {}),
    ("foreground app", "android_get_current_activity", {}),
    ("UI tree", "android_get_ui_tree", {}),
    ("tap at a point", "android_tap", {"x": 540, "y": 1000}),
    ("tap an element", "android_tap_element", {"element": "Phone"}),
    ("type text", "android_input_text", {"text": "hello"}),
    ("launch app", "android_launch_app", {"packageName": "com.google.android.apps.nexuslauncher"}),
    ("battery", "android_get_battery_info", {}),
    ("screenshot full PNG", "android_take_screenshot", {"maxSize": 0, "format": "png"}),
    ("screenshot ≤1024 JPEG", "android_take_screenshot", {"maxSize": 1024, "format": "jpeg"}),
]
CONFIG = "[device]\ncommand_timeout_ms = 10000\n"


def check(answer):
    res = answer.get("result") or {}
    if "error" in answer or res.get("isError"):
        raise RuntimeError(f"tool failed: {str(answer)[:400]}")


def record(tmp, adb):
    rec = Recorder(adb.port)
    inst = start_instance(tmp, "--adb", f"127.0.0.1:{rec.port}", config=CONFIG, home=tmp / "rec-home")
    plans = {}
    try:
        h = MiniHttp(inst.url, inst.token)
        for label, tool, args in OPS:
            check(h.call(tool, args))
            time.sleep(0.3)
            rec.take()
            check(h.call(tool, args))
            time.sleep(0.3)
            plans[label] = waves(rec.take())
            print(label, plans[label], flush=True)
        h.close()
    finally:
        inst.stop()
        rec.close()
    return plans


def measure(tmp, adb, plans, rounds, seconds):
    inst = start_instance(tmp, "--adb", adb.endpoint(), config=CONFIG, home=tmp / "bench-home")
    deadline = Deadline(seconds)
    out = {}
    try:
        h = MiniHttp(inst.url, inst.token)
        floor = []
        for _ in range(min(rounds * 3, 1000)):
            t = time.perf_counter()
            check(h.call("spock_get_status", {}))
            floor.append(time.perf_counter() - t)
        out["spock_get_status (no device)"] = {"tool": summary_ms(floor)}
        for label, tool, args in OPS:
            plan = plans[label]
            check(h.call(tool, args))
            replay(adb.port, plan)
            tt, rt = [], []
            for _ in range(rounds):
                if not deadline.left():
                    break
                t = time.perf_counter()
                check(h.call(tool, args))
                tt.append(time.perf_counter() - t)
                t = time.perf_counter()
                replay(adb.port, plan)
                rt.append(time.perf_counter() - t)
            ts, rs = summary_ms(tt), summary_ms(rt)
            diffs = [a - b for a, b in zip(tt, rt)]
            out[label] = {
                "tool_name": tool,
                "args": args,
                "requests": plan,
                "tool": ts,
                "raw": rs,
                "overhead_ms": ts["median"] - rs["median"],
                "overhead_paired_median_ms": statistics.median(diffs) * 1000,
            }
            print(f"{label:24} tool {ts['median']:8.2f}  raw {rs['median']:8.2f}  overhead {out[label]['overhead_ms']:7.2f} ms", flush=True)
        h.close()
    finally:
        inst.stop()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--max-seconds", type=float, default=600)
    a = ap.parse_args()
    rounds = max(1, min(a.rounds, 1000))
    with tempfile.TemporaryDirectory() as td:
        tmp = pathlib.Path(td)
        adb = RealAdb(tmp, [DEMO])
        try:
            plans = record(tmp, adb)
            res = measure(tmp, adb, plans, rounds, a.max_seconds)
        finally:
            adb.close()
    print("wrote", write_json("limit", {"rounds": rounds, "ops": res}))


if __name__ == "__main__":
    main()
