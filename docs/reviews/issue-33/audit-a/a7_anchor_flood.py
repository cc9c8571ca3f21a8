"""Goal 4: the user floods the collector (its own TCP connection) with N well-formed anchors of
THIS trail's id and real run id but seqs far in the future and of random other trails; how long
and how much memory root's verify --anchors needs (unbounded time/memory?), and what it says."""
import os, resource, random
from lab import *
N = int(os.environ.get("N", "200000"))

def flood(port, trail, run, n):
    with socket.create_connection(("127.0.0.1", port)) as so:
        buf = []
        for i in range(n):
            tr = trail if i % 2 == 0 else "%016x" % random.getrandbits(64)
            h = "%064x" % random.getrandbits(256)
            msg = (f'<85>1 2030-01-01T00:00:00.000Z host spock-tui 1 anchor [spock@32473 trail="{tr}" run="{run}" '
                   f'seq="{i + 10}" hash="{h}" time="2030-01-01T00:00:00.000Z" reason="tick"] audit anchor')
            buf.append(f"{len(msg)} {msg}")
            if len(buf) == 1000:
                so.sendall("".join(buf).encode()); buf = []
        so.sendall("".join(buf).encode())

async def main():
    lab = Lab(); tmp = tmpdir()
    try:
        s = lab.server(tmp, "fl", config=VIA_CLIENT)
        async with s.client() as c:
            await reads(c, 2)
        stop(s); s.wait_for_anchor("stop")
        run = lab.tamper(s, lambda t: json.loads(t.state.read_text())["run"])
        lab.as_user(flood, lab.rsyslog.port, s.trail, run, N)
        for _ in range(120):
            if sum(1 for _ in open(lab.rsyslog.rfc5424, errors="replace")) >= N: break
            time.sleep(1)
        print("log lines:", sum(1 for _ in open(lab.rsyslog.rfc5424, errors="replace")), "size MiB", lab.rsyslog.rfc5424.stat().st_size >> 20)
        t0 = time.monotonic()
        code, out = verify(lab, s)
        print(f"verify exit {code} in {time.monotonic() - t0:.1f}s, max child RSS {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >> 10} MiB")
        print(out[:600], "...", len(out), "chars of output")
    finally:
        lab.close()
asyncio.run(main())
