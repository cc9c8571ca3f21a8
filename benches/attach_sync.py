"""Attach sync (issue 18; attach protocol 4 since issue 40): how long a control centre waits
between connecting and the view it draws from, with N calls in the audit trail (the History
preload is sent first, up to `history.size` records). Against `serve --demo`; N read-only calls
through the stdio relay first, then ATTACHES raw attach clients in turn on the control socket,
each timed from connect (through the handshake's two proofs) to its `view`. Prints the median
and the worst, and the preload's size.

    python3 benches/attach_sync.py 1000 20
"""
import argparse
import hashlib
import hmac
import json
import os
import pathlib
import secrets
import socket
import statistics
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The binary cargo built: $SPOCK_TUI_BIN, else the debug build in $CARGO_TARGET_DIR or target/.
EXE = os.environ.get(
    "SPOCK_TUI_BIN",
    str(pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target") / "debug" / "spock-tui"),
)


def proof(cred, role, client_nonce, server_nonce):
    """The attach handshake's HMAC (docs/attach.md)."""
    msg = f"spock-tui attach proof: {role}\0".encode() + client_nonce.encode() + b"\0" + server_nonce.encode()
    return hmac.new(cred.encode(), msg, hashlib.sha256).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("calls", type=int, nargs="?", default=1000, help="read-only calls put in the trail first")
    ap.add_argument("attaches", type=int, nargs="?", default=20, help="attach clients timed in turn")
    a = ap.parse_args()
    home = pathlib.Path(tempfile.mkdtemp()) / "home"
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(f"[history]\nsize = {max(a.calls, 1)}\n")
    env = {**os.environ, "SPOCK_TUI_HOME": str(home)}
    serve = subprocess.Popen([EXE, "serve", "--demo", "--port", "0"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    for line in serve.stdout:
        if line.startswith("demo "):
            break
    relay = subprocess.Popen([EXE, "relay", str(home / "run" / "endpoint.json")], env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(o):
        relay.stdin.write(json.dumps(o) + "\n")
        relay.stdin.flush()

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "sync", "version": "1"}}})
    relay.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for i in range(a.calls):
        send({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
              "params": {"name": "android_list_devices", "arguments": {}}})
        relay.stdout.readline()
    credential = (home / "config" / "control-credential").read_text().strip()
    times, records, preload_bytes = [], 0, 0
    for _ in range(a.attaches):
        t = time.monotonic()
        s = socket.socket(socket.AF_UNIX)
        s.connect(str(home / "run" / "control.sock"))
        f = s.makefile("rb")
        mine = secrets.token_hex(32)
        s.sendall((json.dumps({"type": "hello", "protocol_version": 4, "nonce": mine, "pid": os.getpid()}) + "\n").encode())
        challenge = json.loads(f.readline())
        assert challenge["type"] == "challenge", challenge
        assert hmac.compare_digest(proof(credential, "server", mine, challenge["nonce"]), challenge["proof"])
        s.sendall((json.dumps({"type": "prove", "proof": proof(credential, "client", mine, challenge["nonce"])})
                   + "\n").encode())
        records = preload_bytes = 0
        while True:
            line = f.readline()
            m = json.loads(line)
            if m["type"] == "history":
                records += len(m["records"])
                preload_bytes += len(line)
            if m["type"] == "view":
                break
        times.append(time.monotonic() - t)
        s.sendall(b'{"type":"detach"}\n')
        s.close()
    serve.terminate()
    serve.wait()
    relay.kill()
    print(json.dumps({
        "calls_in_trail": a.calls, "preloaded_records": records, "preload_bytes": preload_bytes,
        "attaches": a.attaches,
        "connect_to_view_ms_median": round(statistics.median(times) * 1000, 1),
        "connect_to_view_ms_max": round(max(times) * 1000, 1),
        "binary": EXE,
    }))


if __name__ == "__main__":
    main()
