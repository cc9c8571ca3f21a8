"""Time from a confirmation modal appearing to the first `y` it accepts, as a person at a tmux
pane meets it (issue 15: approval keys are ignored for an arming time after a modal is drawn).

    python3 benches/modal_arming.py --rounds 10

spock-tui runs in a private tmux server (-L, no user session touched), 120×40, with the
settings group allowed. A raw stdio client (the relay, JSON-RPC by hand) asks for
`spock_update_settings` (destructive: it asks). The screen is polled until the modal shows
(t0, as tmux holds it); then `y` is sent, the screen read again 20 ms later, and so on until
the modal is gone: the `y` sent last is the one accepted (t1). The figure is t1 − t0. Bounded
by rounds and by time; only the local tmux server and the relay are contacted.
"""
import argparse
import json
import os
import pathlib
import select
import subprocess
import tempfile
import time

from common import EXE, Deadline, summary_ms, write_json
from tmux_harness import start_tui

MODAL = "Approve a destructive call"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=120)
    a = ap.parse_args()
    deadline = Deadline(a.seconds)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="spock-arming-"))
    tui = start_tui(tmp, config='[access]\nallowed_groups = ["settings"]\n')
    relay = subprocess.Popen(
        [EXE, "relay", str(tui.home / "run" / "endpoint.json")],
        env={**os.environ, "SPOCK_TUI_HOME": str(tui.home)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )

    def send(m):
        relay.stdin.write(json.dumps(m).encode() + b"\n")
        relay.stdin.flush()

    def read(timeout):
        r, _, _ = select.select([relay.stdout], [], [], timeout)
        return json.loads(relay.stdout.readline()) if r else None

    samples, ys = [], []
    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
        assert read(10)["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for i in range(a.rounds):
            if not deadline.left():
                break
            rid = 100 + i
            send({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "spock_update_settings", "arguments": {"historySize": 1000 + i}}})
            while MODAL not in tui.screen():
                time.sleep(0.005)
            t0 = time.monotonic()
            sent = 0
            while True:
                t_send = time.monotonic()
                tui.keys("y")
                sent += 1
                time.sleep(0.02)
                if MODAL not in tui.screen():
                    break
                if time.monotonic() - t0 > 10:
                    raise RuntimeError("no y was accepted within 10 s")
            msg = read(10)
            assert msg and msg["id"] == rid and not msg["result"].get("isError"), msg
            samples.append(t_send - t0)
            ys.append(sent)
            time.sleep(0.3)
    finally:
        relay.stdin.close()
        relay.wait(timeout=5)
        tui.kill()
    s = summary_ms(samples)
    p = write_json("modal_arming", {"modal_to_first_accepted_y_ms": s, "ys_sent_per_round": ys})
    print(f"modal on screen -> first accepted y: median {s['median']:.0f} ms "
          f"(min {s['min']:.0f}, max {s['max']:.0f}, n {s['n']}); y's sent per round {ys}; {p}")


if __name__ == "__main__":
    main()
