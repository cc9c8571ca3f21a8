"""Audit flood (issue 16): a denied uninstall, then N read-only calls through the stdio relay
against `serve --demo`, then SIGKILL; counts the records on disk across the rotated files and
runs `spock-tui audit verify`. FLOOD_CONFIG is written as the instance's config.toml.

    FLOOD_CONFIG=$'[audit]\nmax_total_mb = 16\n' python benches/audit_flood.py 20050
"""
import json, os, subprocess, sys, tempfile, time, pathlib, glob
ROOT = pathlib.Path(__file__).resolve().parents[1]
# The binary cargo built: $SPOCK_TUI_BIN, else the debug build in $CARGO_TARGET_DIR or target/.
EXE = os.environ.get(
    "SPOCK_TUI_BIN",
    str(pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target") / "debug" / "spock-tui"),
)
N = int(sys.argv[1]) if len(sys.argv) > 1 else 20050
home = pathlib.Path(tempfile.mkdtemp()) / "home"
(home / "config").mkdir(parents=True, exist_ok=True)
(home / "config" / "config.toml").write_text(os.environ.get("FLOOD_CONFIG", ""))
env = {**os.environ, "SPOCK_TUI_HOME": str(home)}
serve = subprocess.Popen([EXE, "serve", "--demo", "--port", "0", "--toolsets", "all"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
for line in serve.stdout:
    if line.startswith("demo "):
        break
relay = subprocess.Popen([EXE, "relay", str(home / "run" / "endpoint.json")], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
def send(o):
    relay.stdin.write(json.dumps(o) + "\n"); relay.stdin.flush()
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}})
relay.stdout.readline()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "android_uninstall_app", "arguments": {"packageName": "com.example.flood"}}})
relay.stdout.readline()
t = time.monotonic()
for i in range(N):
    send({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {"name": "android_get_battery_info", "arguments": {}}})
    relay.stdout.readline()
dt = time.monotonic() - t
serve.kill(); serve.wait(); relay.kill()
files = sorted(glob.glob(str(home / "data" / "audit" / "audit*.jsonl")))
recs = [json.loads(l) for f in files for l in open(f) if l.strip()]
denied = [r for r in recs if r["tool"] == "android_uninstall_app"]
battery = sum(r["tool"] == "android_get_battery_info" for r in recs)
v = subprocess.run([EXE, "audit", "verify"], env=env, capture_output=True, text=True)
print(f"{N} read-only calls in {dt:.1f} s after a denied uninstall, then kill -9: {len(files)} files, {battery}/{N} read-only records, denied uninstall on disk: {len(denied)}; verify: {v.returncode} {v.stdout.strip()}{v.stderr.strip()}")
import shutil
shutil.rmtree(home.parent, ignore_errors=True)
