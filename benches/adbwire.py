"""A tiny adb smart-socket client (the raw round trip: the floor any tool can reach) and a
recording proxy that shows which requests a tool sends to the adb server, so the raw client can
replay exactly those. Protocol: a request is 4 hex digits of length then the text; the server
answers OKAY or FAIL+len+message; `host:*` queries then carry a length-prefixed payload,
`host:transport:S` switches the socket to the device and the next request is a device service
whose output runs to EOF."""
import socket
import threading
import time


def _read_exact(s, n):
    b = b""
    while len(b) < n:
        d = s.recv(n - len(b))
        if not d:
            raise ConnectionError("adb server closed early")
        b += d
    return b


def _status(s, req):
    st = _read_exact(s, 4)
    if st == b"OKAY":
        return
    if st == b"FAIL":
        n = int(_read_exact(s, 4), 16)
        raise RuntimeError(f"{req}: FAIL {_read_exact(s, n).decode(errors='replace')}")
    raise RuntimeError(f"{req}: unexpected {st!r}")


def raw_connection(port: int, requests: list[str], timeout=30.0) -> int:
    """Send `requests` on one connection the way an adb client does; return the bytes read."""
    got = 0
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for req in requests:
            data = req.encode()
            s.sendall(b"%04x" % len(data) + data)
            _status(s, req)
            if req.startswith("host:tport:"):
                got += len(_read_exact(s, 8))
            elif req.startswith("host:transport"):
                continue
            elif req.startswith(("host:", "host-serial:", "host-local:", "host-usb:")):
                if req in ("host:kill",):
                    return got
                n = int(_read_exact(s, 4), 16)
                got += len(_read_exact(s, n))
                return got
            else:  # a device service: output until the device closes the stream
                while True:
                    d = s.recv(1 << 20)
                    if not d:
                        return got
                    got += len(d)
    return got


class Recorder:
    """A proxy in front of the real adb server that records, per client connection, the
    requests sent (until the socket turns into a device stream) with open/close times."""

    def __init__(self, upstream_port: int):
        self.up = upstream_port
        self.lsock = socket.create_server(("127.0.0.1", 0))
        self.port = self.lsock.getsockname()[1]
        self.conns = []
        self.lock = threading.Lock()
        self.stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        self.lsock.settimeout(0.2)
        while not self.stop:
            try:
                c, _ = self.lsock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _serve(self, c):
        rec = {"open": time.monotonic(), "close": None, "requests": []}
        with self.lock:
            self.conns.append(rec)
        u = socket.create_connection(("127.0.0.1", self.up))

        def down():  # server → client, verbatim
            try:
                while True:
                    d = u.recv(1 << 20)
                    if not d:
                        break
                    c.sendall(d)
            except OSError:
                pass
            rec["served"] = time.monotonic()
            try:
                c.shutdown(socket.SHUT_WR)
            except OSError:
                pass

        t = threading.Thread(target=down, daemon=True)
        t.start()
        buf = b""
        parsing = True
        try:
            while True:
                d = c.recv(1 << 16)
                if not d:
                    break
                u.sendall(d)
                if parsing:
                    buf += d
                    while parsing and len(buf) >= 4:
                        try:
                            n = int(buf[:4], 16)
                        except ValueError:
                            parsing = False
                            break
                        if len(buf) < 4 + n:
                            break
                        req = buf[4 : 4 + n].decode(errors="replace")
                        buf = buf[4 + n :]
                        rec["requests"].append(req)
                        if not req.startswith("host"):
                            parsing = False  # now a device stream (shell stdin, sync…)
        except OSError:
            pass
        try:
            u.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        t.join(timeout=30)
        rec["close"] = time.monotonic()
        c.close()
        u.close()

    def take(self):
        """The finished connections recorded so far (and forget them)."""
        with self.lock:
            done = [r for r in self.conns if r["close"] is not None]
            self.conns = [r for r in self.conns if r["close"] is None]
        return done

    def close(self):
        self.stop = True
        self.lsock.close()


def waves(conns):
    """Group recorded connections into sequential waves: a connection that opened after one in
    the current wave had been answered in full (the server closed its side) depended on it; the
    rest overlapped (ran concurrently). The answer's end, not the client's close: a client may
    keep a finished connection open while it works on the answer."""
    def done(x):
        return x.get("served") or x["close"]

    out = []
    for r in sorted(conns, key=lambda r: r["open"]):
        if out and r["open"] < min(done(x) for x in out[-1]):
            out[-1].append(r)
        else:
            out.append([r])
    return [[r["requests"] for r in w] for w in out]


def replay(port: int, plan) -> None:
    """Run a wave plan: waves in order, each wave's connections concurrently."""
    for wave in plan:
        if len(wave) == 1:
            raw_connection(port, wave[0])
            continue
        errs = []

        def one(reqs):
            try:
                raw_connection(port, reqs)
            except Exception as e:  # surfaced after join
                errs.append(e)

        ts = [threading.Thread(target=one, args=(w,)) for w in wave]
        for t in ts:
            t.start()
        for t in ts:
            t.join(timeout=60)
        if errs:
            raise errs[0]
