"""Shared setup for audit-a attacks: reuses the project's test harness (audit_tamper.Lab) against
the release binary /work/attack/spock-tui5. Run scripts with /work/main/.venv/bin/python as root."""
import os, sys, json, time, pathlib, tempfile, subprocess, asyncio, signal
os.environ.setdefault("SPOCK_TUI_BIN", "/work/attack/spock-tui5")
sys.path.insert(0, "/work/main/tests/python")
import audit_tamper as at  # noqa
from audit_tamper import Lab, Trail, line_hash, dumps, rechain  # noqa
import socket

def send_frame(port, msg):
    with socket.create_connection(("127.0.0.1", port)) as so:
        so.sendall(f"{len(msg.encode())} {msg}".encode())
from conftest import call  # noqa
import mcp_types as types  # noqa

VIA_CLIENT = "[confirm]\nvia_client = true\n"
NOTES = {"packageName": "com.example.notes"}

async def approve(ctx, params):
    return types.ElicitResult(action="accept", content={"approve": True})

async def decline(ctx, params):
    return types.ElicitResult(action="accept", content={"approve": False})

async def reads(c, n):
    for _ in range(n):
        err, r = await call(c, "android_get_battery_info")
        assert not err, r

def tmpdir():
    d = pathlib.Path(tempfile.mkdtemp(prefix="audit-a-"))
    return d

def verify(lab, s):
    v = s.run_as_root("audit", "verify", "--anchors", str(lab.rsyslog.rfc5424))
    return v.returncode, (v.stdout + v.stderr).strip()

def anchors(lab, s):
    return [l for l in lab.rsyslog.lines() if f'trail="{s.trail}"' in l]

def short(l):
    i = l.find("[spock@")
    return l[i:l.find("]", i) + 1] if i >= 0 else l

def show(title, lab, s):
    code, out = verify(lab, s)
    print(f"--- {title}: verify --anchors exit {code}\n{out}")
    return code, out

def recs(lab, s):
    return lab.tamper(s, Trail.records)

def stop(s):
    try:
        s.stop()
    except Exception as e:
        print("stop:", e)
