"""Attach sync (issue 18, attach protocol 2): how long a control centre waits between its
`hello` and the view it draws from, with N calls in the audit trail (the History preload is
sent first, up to `history.size` records). Against `serve --demo`; N read-only calls through
the stdio relay first, then ATTACHES raw attach clients in turn on the control socket, each
timed from connect to its `view`. Prints the median and the worst, and the preload's size.

    python benches/attach_sync.py 1000 20
"""
import json, os, socket, statistics, subprocess, sys, tempfile, time, pathlib
ROOT = pathlib.Path(__file__).resolve().parents[1]
# The binary cargo built: $SPOCK_TUI_BIN, else the debug build in $CARGO_TARGET_DIR or target/.
EXE = os.environ.get(
    "SPOCK_TUI_BIN",
    str(pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target") / "debug" / "spock-tui"),
)
N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
ATTACHES = int(sys.argv[2]) if len(sys.argv) > 2 else 20
home = pathlib.Path(tempfile.mkdtemp()) / "home"
(home / "config").mkdir(parents=True, exist_ok=True)
(home / "config" / "config.toml").write_text(f"[history]\nsize = {max(N, 1)}\n")
env = {**os.environ, "SPOCK_TUI_HOME": str(home)}
serve = subprocess.Popen([EXE, "serve", "--demo", "--port", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
for line in serve.stdout:
    if line.startswith("demo "):
        break
relay = subprocess.Popen([EXE, "relay", str(home / "run" / "endpoint.json")], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
def send(o):
    relay.stdin.write(json.dumps(o) + "\n"); relay.stdin.flush()
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "sync", "version": "1"}}})
relay.stdout.readline()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
for i in range(N):
    send({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {"name": "android_get_battery_info", "arguments": {}}})
    relay.stdout.readline()
credential = (home / "config" / "control-credential").read_text().strip()
times, records, preload_bytes = [], 0, 0
for _ in range(ATTACHES):
    t = time.monotonic()
    s = socket.socket(socket.AF_UNIX)
    s.connect(str(home / "run" / "control.sock"))
    s.sendall((json.dumps({"type": "hello", "protocol_version": 2, "credential": credential, "pid": os.getpid()}) + "\n").encode())
    f = s.makefile("rb")
    records = preload_bytes = 0
    while True:
        line = f.readline()
        m = json.loads(line)
        if m["type"] == "history":
            records += len(m["records"]); preload_bytes += len(line)
        if m["type"] == "view":
            break
    times.append(time.monotonic() - t)
    s.sendall(b'{"type":"detach"}\n'); s.close()
serve.terminate(); serve.wait(); relay.kill()
print(json.dumps({
    "calls_in_trail": N, "preloaded_records": records, "preload_bytes": preload_bytes, "attaches": ATTACHES,
    "hello_to_view_ms_median": round(statistics.median(times) * 1000, 1),
    "hello_to_view_ms_max": round(max(times) * 1000, 1),
    "binary": EXE,
}))
