"""The person sees the audit trail's state (issue 33): an attached control centre gets where the
trail is anchored, the last anchor (seq, time), a failing sink, and the last verify, all from a
real server anchoring to a real TCP collector (a plain socket server here: the rsyslog tests are
in test_audit_anchors.py)."""
import asyncio
import socket
import threading
import time

import pytest
from conftest import call, start_instance
from mcp import Client
from test_attach import attached

pytestmark = pytest.mark.anyio


class Collector:
    """Accepts connections on a loopback port and keeps every byte."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.data = bytearray()
        self.conns = []
        self.stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            threading.Thread(target=self._read, args=(c,), daemon=True).start()

    def _read(self, c):
        while True:
            try:
                b = c.recv(65536)
            except OSError:
                return
            if not b:
                return
            self.data.extend(b)

    def stop(self):
        # shutdown first: a close alone leaves the socket listening while accept() holds it.
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        for c in self.conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.close()


async def view_where(c, pred, timeout=20.0):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            m = await c.recv(max(0.1, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            break
        assert m is not None, "closed"
        if m["type"] == "view":
            last = m["view"].get("trail")
            if pred(last):
                return last
    raise AssertionError(f"no view with the wanted trail state; last: {last}")


async def test_an_attached_control_centre_sees_the_trail_anchored_verified_and_failing(tmp_path):
    col = Collector()
    inst = start_instance(tmp_path, "--demo",
                          config=f'[audit]\nanchor = "tcp:127.0.0.1:{col.port}"\n')
    try:
        c, _ = await attached(inst)
        # The start anchor was delivered; the verify run at start found the chain intact.
        t = await view_where(c, lambda t: t and t.get("last_anchor_ms") and t.get("verified_ok") is not None)
        assert t["target"] == f"tcp:127.0.0.1:{col.port}", t
        assert t["last_anchor_seq"] == 0 and t["failure"] is None, t
        assert t["verified_ok"] is True and "intact" in t["verified"], t
        assert b"reason=start" in col.data, bytes(col.data)

        # The collector goes away; the next calls' anchors fail and the view says so.
        col.stop()
        async with Client(inst.relay_params(), mode="legacy") as mcp:
            for _ in range(3):
                err, r = await call(mcp, "android_get_battery_info")
                assert not err, r
            # The tick after the 3 s anchor interval tries, fails, and is reported.
            t = await view_where(c, lambda t: t.get("failure"), timeout=30)
        assert str(col.port) in t["failure"], t
        c.close()
    finally:
        inst.stop()
        col.stop()
