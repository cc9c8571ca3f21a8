"""A lab at scale: 1, 8 and 24 virtual devices spread over three adb servers (two real Debian
adb servers, A and B, each `adb connect`-ed to adbd's of `spock-tui sim`, and the front door F,
a sim's own adb server), all loopback, combined in one `spock-tui serve --adb A --adb B --adb F`.

For each size, every device gets a 20 ms reply delay (a phone's latency, the sim's `delay`
fault) and one worker per device calls `android_get_current_activity` on its own device over
HTTP (stateless 2026-07-28 POSTs on one keep-alive connection each) for --seconds: calls per
second and latency. Then, at the largest size, three kinds of trouble on one host while the
workers of the other hosts' devices keep calling (and one more client lists devices):
- slow:   every device on B answers 500 ms late;
- hung:   every device on B hangs its `dumpsys` (the call times out there);
- frozen: A's adb server is stopped with SIGSTOP (it still accepts connections).

    python3 benches/lab_scale.py --sizes 1,8,24 --seconds 8

Every loop is bounded in count and time; all traffic stays on 127.0.0.1.
"""
import argparse
import pathlib
import sys
import tempfile
import threading
import time

from common import DEMO, MiniHttp, start_instance, summary_ms, write_json
import test_lab  # tests/python, on the path through common: AdbServer, Sim

TOOL = "android_get_current_activity"


class Rig:
    def __init__(self, tmp: pathlib.Path, n: int):
        self.parts = []
        self.tmp = tmp
        on_a, on_b, on_f = n - 2 * (n // 3) - (n % 3 == 2), n // 3 + (n % 3 == 2), n // 3
        if n == 1:
            on_a, on_b, on_f = 1, 0, 0
        self.counts = {"A": on_a, "B": on_b, "F": on_f}
        try:
            adbd = on_a + on_b
            args = [a for _ in range(adbd) for a in ("--adbd", "127.0.0.1:0")]
            args += [a for _ in range(adbd) for a in ("--device", str(DEMO))]
            self.sim = test_lab.Sim(tmp, f"adbd{n}", *args)
            self.parts.append(self.sim)
            self.a = test_lab.AdbServer(tmp, f"a{n}")
            self.parts.append(self.a)
            self.b = test_lab.AdbServer(tmp, f"b{n}")
            self.parts.append(self.b)
            fargs = ["--adb-server", "127.0.0.1:0"]
            fargs += [a for _ in range(max(on_f, 1)) for a in ("--device", str(DEMO))]
            self.front = test_lab.Sim(tmp, f"front{n}", *fargs)
            self.parts.append(self.front)
            addrs = [d["addr"] for d in self.sim.info["adbd"]]
            self.sim_serial = {d["addr"]: d["serial"] for d in self.sim.info["adbd"]}
            self.devices = {"A": [], "B": [], "F": []}
            for addr in addrs[:on_a]:
                self.a.connect(addr)
                self.devices["A"].append(f"{addr}@{self.a.endpoint}")
            for addr in addrs[on_a:]:
                self.b.connect(addr)
                self.devices["B"].append(f"{addr}@{self.b.endpoint}")
            self.f = self.front.info["adb_server"]
        except BaseException:
            self.close()
            raise

    def close(self):
        for p in reversed(self.parts):
            p.stop()


def fault_all(sim: "test_lab.Sim", **cmd):
    """A control line without `serial`: every device of that sim."""
    import json
    import socket

    host, port = sim.info["control"].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall((json.dumps(cmd) + "\n").encode())
        return s.makefile().readline()


test_lab.Sim.fault_all = fault_all


def worker(url, token, serial, stop, seconds, out):
    c = MiniHttp(url, token)
    end = time.monotonic() + seconds
    i = 0
    lat, errors = [], 0
    while not stop.is_set() and time.monotonic() < end:
        i += 1
        t = time.perf_counter()
        args = {"serial": serial} if serial else {}
        r = c.call(TOOL, args, i)
        lat.append(time.perf_counter() - t)
        if r.get("result", {}).get("isError") or "error" in r:
            errors += 1
    c.close()
    out.append((lat, errors))


def run_phase(url, token, serials, seconds, lister=False, troubled=()):
    """Workers on `serials` (and on `troubled`, reported apart) for `seconds`; calls per second
    count the healthy devices' calls over the phase's own length, not over a hung call's wait."""
    stop = threading.Event()
    results, bad, listings = [], [], []
    threads = [threading.Thread(target=worker, args=(url, token, s, stop, seconds, results)) for s in serials]
    threads += [threading.Thread(target=worker, args=(url, token, s, stop, seconds, bad)) for s in troubled]
    if lister:
        def lst():
            c = MiniHttp(url, token)
            end = time.monotonic() + seconds
            i = 0
            while time.monotonic() < end:
                i += 1
                t = time.perf_counter()
                c.call("android_list_devices", {}, i)
                listings.append(time.perf_counter() - t)
                time.sleep(0.1)
            c.close()
        threads.append(threading.Thread(target=lst))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 60)
    lat = [x for ls, _ in results for x in ls]
    out = {"devices_called": len(serials), "calls": len(lat), "errors": sum(e for _, e in results),
           "calls_per_s": len(lat) / seconds, "latency_ms": summary_ms(lat) if lat else None}
    if troubled:
        tl = [x for ls, _ in bad for x in ls]
        out["troubled_devices"] = {"devices_called": len(troubled), "calls": len(tl),
                                   "errors": sum(e for _, e in bad), "latency_ms": summary_ms(tl) if tl else None}
    if lister:
        out["listing_ms"] = summary_ms(listings) if listings else None
    return out


def wait_listed(url, token, want, limit=60):
    c = MiniHttp(url, token)
    end = time.monotonic() + limit
    n = 0
    while time.monotonic() < end:
        r = c.call("android_list_devices", {}, 1)
        sc = r.get("result", {}).get("structuredContent") or {}
        n = len([d for d in sc.get("devices", []) if d.get("state") == "device"])
        if n >= want:
            c.close()
            return sc
        time.sleep(0.3)
    c.close()
    raise RuntimeError(f"only {n} of {want} devices listed")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,8,24")
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--delay-ms", type=int, default=20)
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    report = {"sizes": {}, "trouble": {}}
    for n in sizes:
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f"spock-lab{n}-"))
        rig = Rig(tmp, n)
        inst = None
        try:
            inst = start_instance(tmp, "--adb", rig.a.endpoint, "--adb", rig.b.endpoint, "--adb", rig.f)
            listed = wait_listed(inst.url, inst.token, n + (1 if rig.counts["F"] == 0 else 0))
            front = [d["id"] for d in listed["devices"] if d["id"].endswith("@" + rig.f)][: rig.counts["F"]]
            serials = rig.devices["A"] + rig.devices["B"] + front
            for serial in rig.sim_serial.values():
                rig.sim.fault(serial, fault="delay", ms=a.delay_ms)
            fault_all(rig.front, fault="delay", ms=a.delay_ms)
            report["sizes"][n] = run_phase(inst.url, inst.token, serials, a.seconds)
            print(f"lab {n:>2} devices: {report['sizes'][n]['calls_per_s']:.0f} calls/s, "
                  f"p50 {report['sizes'][n]['latency_ms']['median']:.1f} ms", file=sys.stderr)
            if n == max(sizes) and n >= 3:
                healthy_of_b = rig.devices["A"] + front
                healthy_of_a = rig.devices["B"] + front
                report["trouble"]["none"] = run_phase(inst.url, inst.token, healthy_of_b, a.seconds, lister=True)
                for addr, serial in rig.sim_serial.items():
                    if any(d.startswith(addr + "@") for d in rig.devices["B"]):
                        rig.sim.fault(serial, fault="delay", ms=500)
                report["trouble"]["B_slow"] = run_phase(inst.url, inst.token, healthy_of_b, a.seconds, lister=True)
                for addr, serial in rig.sim_serial.items():
                    if any(d.startswith(addr + "@") for d in rig.devices["B"]):
                        rig.sim.fault(serial, fault="clear")
                        rig.sim.fault(serial, fault="hang", command="dumpsys")
                # The hung host's own devices are called too: their calls time out, the others' must not.
                report["trouble"]["B_hung"] = run_phase(inst.url, inst.token, healthy_of_b, a.seconds,
                                                        lister=True, troubled=rig.devices["B"][:2])
                for addr, serial in rig.sim_serial.items():
                    rig.sim.fault(serial, fault="clear")
                    rig.sim.fault(serial, fault="delay", ms=a.delay_ms)
                time.sleep(2)
                rig.a.freeze()
                try:
                    report["trouble"]["A_frozen"] = run_phase(inst.url, inst.token, healthy_of_a, a.seconds, lister=True)
                finally:
                    rig.a.thaw()
                for k, v in report["trouble"].items():
                    lm = v.get("listing_ms") or {}
                    print(f"lab trouble {k:>8}: {v['calls_per_s']:.0f} calls/s on {v['devices_called']} devices, "
                          f"p50 {v['latency_ms']['median']:.1f} ms p99 {v['latency_ms']['p99']:.1f} ms, "
                          f"errors {v['errors']}, listing p50 {lm.get('median', float('nan')):.1f} ms", file=sys.stderr)
        finally:
            if inst:
                inst.stop()
            rig.close()
    p = write_json("lab_scale", report)
    print(p)


if __name__ == "__main__":
    main()
