#!/usr/bin/env bash
# Runs every Python benchmark in turn (never two at once: they would disturb each other) and
# leaves JSON results in $BENCH_OUT (default /tmp/spock-bench). Needs: a release build
# (cargo build --release), Debian's adb, tmux, wrk, node + npm, the packages in
# tests/python/requirements.txt. Only 127.0.0.1 is contacted (npm install aside).
set -euo pipefail
cd "$(dirname "$0")"
PEER=${PEER:-/tmp/peer}
if [ ! -e "$PEER/node_modules/@mobilenext/mobile-mcp/lib/index.js" ]; then
  npm install --prefix "$PEER" @mobilenext/mobile-mcp@1.0.4
fi
{ nproc; free -h; grep -m1 'model name' /proc/cpuinfo; date -u; cat /proc/loadavg; } | tee "${BENCH_OUT:-/tmp/spock-bench}.machine.txt"
python3 context.py --peer "$PEER"
python3 peer.py --peer "$PEER" --rounds 30 --cold 5
python3 limit.py --rounds 60
python3 throughput.py --seconds 10
python3 tui_resources.py --calls 10000 --idle 60 --starts 5
python3 modal_arming.py --rounds 10
