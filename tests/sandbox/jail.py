"""The sandbox that runs one corpus command at a time with a real shell, started as a program:

    python3 jail.py TEMPLATE WORKDIR

It must be started as root (CI runs as root). It never runs a command outside the namespaces:
the parent process stays outside only to write the user-namespace maps and then waits; the child

- enters new user, mount, pid, network, IPC and UTS namespaces; inside, uid 0 is host uid
  `OUTER_ROOT` and uid 2000 (Android's `shell`) is host uid `OUTER_ROOT + 1`, neither of which
  owns anything on the host;
- becomes that namespace root (an unprivileged uid on the host) and forks the namespace's pid 1;
- for every request read from stdin (one JSON object per line: `{"cmd": ..., "shell": "mksh" or
  "busybox", "limit": seconds}`) mounts a fresh tmpfs, copies TEMPLATE into it, bind-mounts the
  storage aliases Android has (`/storage/emulated`, `/mnt/user/0/emulated`,
  `/mnt/pass_through/0/emulated` are all `/data/media`), bind-mounts the shells, toybox and
  their libraries read-only from outside the template, points `/system/bin/sh` at the shell,
  records the markers, then runs `sh -c CMD` chrooted into that tmpfs as uid 2000 with no
  capabilities and `no_new_privs`, bounded processes, memory, file size and CPU time, stdin
  empty, and descriptor 9 open on a log file outside the root that the stub programs append
  their argv to;
- waits for the command and every process it left behind, up to the time limit, then kills
  everything in the pid namespace, records the markers again, unmounts the root and writes one
  JSON object per request to stdout: the markers before and after, the stub log, the output
  (first 4 KiB), the exit status, whether the time limit was hit and the command itself.

There is no real /proc, /dev or /sys in the root: the template holds plain files and symlinks in
their place. Only the standard library is used, and everything is imported before the uid
changes, because the interpreter's own files may not be readable by the namespace uids.
"""
import ctypes
import ctypes.util
import hashlib
import json
import os
import resource
import shutil
import signal
import stat
import sys
import time

OUTER_ROOT = 1_912_000_000
SHELL_UID = 2000
CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID = 2
MS_NODEV = 4
MS_RDONLY = 1
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1

# The storage aliases that are the same directory on Android (FUSE / bind mounts there).
BINDS = ("storage/emulated", "mnt/user/0/emulated", "mnt/pass_through/0/emulated")
ANDROID_ENV = {
    "PATH": "/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin:/vendor/bin",
    "HOME": "/",
    "USER": "shell",
    "LOGNAME": "shell",
    "SHELL": "/system/bin/sh",
    "HOSTNAME": "sandbox",
    "TMPDIR": "/data/local/tmp",
    "ANDROID_ROOT": "/system",
    "ANDROID_DATA": "/data",
    "ANDROID_STORAGE": "/storage",
    "EXTERNAL_STORAGE": "/sdcard",
    "ASEC_MOUNTPOINT": "/mnt/asec",
    "TERM": "dumb",
}

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
# Resolved now: the host's PATH directories may not be searchable once the uid has changed.
CP = shutil.which("cp") or "/bin/cp"


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(src: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(
        libc.mount(
            src.encode(),
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def umount(target: str) -> None:
    _check(libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")


def enter_namespaces() -> None:
    """Fork; the child unshares, the parent (still host root) writes its uid/gid maps."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid:
        os.close(ready_w)
        os.close(go_r)
        if os.read(ready_r, 1) != b"u":
            os._exit(70)
        try:
            for name, inner_shell in (("uid_map", SHELL_UID), ("gid_map", SHELL_UID)):
                with open(f"/proc/{pid}/{name}", "w") as f:
                    f.write(f"0 {OUTER_ROOT} 1\n{inner_shell} {OUTER_ROOT + 1} 1\n")
        except OSError as e:
            print(json.dumps({"fatal": f"cannot write the namespace id maps: {e}"}), flush=True)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os._exit(71)
        os.write(go_w, b"g")
        # The parent only waits; it takes no requests and runs nothing.
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    os.close(ready_r)
    os.close(go_w)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    _check(
        libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS),
        "unshare",
    )
    os.write(ready_w, b"u")
    if os.read(go_r, 1) != b"g":
        os._exit(72)
    os.setgroups([])
    os.setresgid(0, 0, 0)
    os.setresuid(0, 0, 0)
    mount("none", "/", None, MS_REC | MS_PRIVATE)
    _check(libc.unshare(CLONE_NEWPID), "unshare pid")


def snapshot(root: str, paths: list[str]) -> dict:
    """What each marker path looks like: type, identity, size, times, link target, content."""
    out = {}
    for p in paths:
        full = root + p
        try:
            st = os.lstat(full)
        except OSError:
            out[p] = None
            continue
        sig = {"mode": stat.S_IFMT(st.st_mode), "ino": st.st_ino}
        if stat.S_ISLNK(st.st_mode):
            sig["link"] = os.readlink(full)
        elif stat.S_ISREG(st.st_mode):
            sig["size"] = st.st_size
            sig["mtime"] = st.st_mtime_ns
            try:
                with open(full, "rb") as f:
                    sig["head"] = hashlib.sha1(f.read(65536)).hexdigest()
            except OSError as e:
                sig["head"] = f"unreadable: {e.errno}"
        out[p] = sig
    return out


def run_one(template: str, work: str, req: dict) -> dict:
    root = os.path.join(work, "root")
    scratch = os.path.join(work, "scratch")
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, f"size=48m,mode=755,uid={SHELL_UID},gid={SHELL_UID}")
    try:
        rc = os.spawnv(os.P_WAIT, CP, ["cp", "-a", template + "/.", root + "/"])
        if rc != 0:
            raise RuntimeError(f"cp -a of the template failed: {rc}")
        for b in BINDS:
            mount(root + "/data/media", f"{root}/{b}", None, MS_BIND)
        for src, rel in req.get("ro", ()):
            mount(src, root + rel, None, MS_BIND)
            mount("none", root + rel, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
        sh = os.path.join(root, "system/bin/sh")
        os.unlink(sh)
        os.symlink(req["shell"], sh)
        os.lchown(sh, SHELL_UID, SHELL_UID)
        markers = req["markers"]
        before = snapshot(root, markers)
        log_path = os.path.join(scratch, "stub.log")
        out_path = os.path.join(scratch, "out")
        log_fd = os.open(log_path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        out_fd = os.open(out_path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        stdin_r, stdin_w = os.pipe()
        os.close(stdin_w)
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                # Bounded so that no command can exhaust the machine (a fork bomb, a huge file).
                resource.setrlimit(resource.RLIMIT_NPROC, (256, 256))
                resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
                resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
                resource.setrlimit(resource.RLIMIT_CPU, (20, 20))
                os.chroot(root)
                os.chdir("/")
                os.setgroups([])
                os.setresgid(SHELL_UID, SHELL_UID, SHELL_UID)
                os.setresuid(SHELL_UID, SHELL_UID, SHELL_UID)
                libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
                os.dup2(stdin_r, 0)
                os.dup2(out_fd, 1)
                os.dup2(out_fd, 2)
                os.dup2(log_fd, 9)
                os.closerange(3, 9)
                os.closerange(10, 65536)
                os.umask(0o077)
                os.execve("/system/bin/sh", ["sh", "-c", req["cmd"]], ANDROID_ENV)
            finally:
                os._exit(127)
        os.close(stdin_r)
        deadline = start + float(req.get("limit", 5))
        status = None
        timed_out = False
        while True:
            try:
                got, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if got == pid:
                status = os.waitstatus_to_exitcode(st)
            if got:
                continue
            if time.monotonic() > deadline:
                timed_out = True
                os.kill(-1, signal.SIGKILL)
                while True:
                    try:
                        os.waitpid(-1, 0)
                    except ChildProcessError:
                        break
                break
            time.sleep(0.002)
        elapsed = time.monotonic() - start
        after = snapshot(root, markers)
        os.lseek(log_fd, 0, 0)
        log = os.read(log_fd, 1 << 20).decode("utf-8", "replace")
        os.lseek(out_fd, 0, 0)
        output = os.read(out_fd, 4096).decode("utf-8", "replace")
        os.close(log_fd)
        os.close(out_fd)
        return {
            "before": before,
            "after": after,
            "log": log.splitlines(),
            "output": output,
            "status": status,
            "timed_out": timed_out,
            "seconds": round(elapsed, 4),
        }
    finally:
        umount(root)


def serve(template: str, work: str) -> None:
    mount("tmpfs", os.path.join(work, "scratch"), "tmpfs", MS_NOSUID | MS_NODEV, "size=8m,mode=700")
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        try:
            res = run_one(template, work, req)
        except Exception as e:  # reported per request, the outer side fails the test with it
            res = {"error": f"{type(e).__name__}: {e}"}
        res["id"] = req.get("id")
        res["cmd"] = req.get("cmd")
        print(json.dumps(res), flush=True)


def main() -> None:
    template, work = sys.argv[1], sys.argv[2]
    if os.geteuid() != 0:
        print(json.dumps({"fatal": "the sandbox needs root outside to map an unprivileged uid inside"}), flush=True)
        sys.exit(3)
    try:
        enter_namespaces()
    except OSError as e:
        print(json.dumps({"fatal": f"namespaces unavailable: {e}"}), flush=True)
        os._exit(4)
    pid = os.fork()
    if pid:
        # The unshare(CLONE_NEWPID) caller is not in the new namespace: it waits for its pid 1.
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    assert os.getpid() == 1
    try:
        serve(template, work)
    except Exception as e:
        print(json.dumps({"fatal": f"{type(e).__name__}: {e}"}), flush=True)
        os._exit(5)
    os._exit(0)


if __name__ == "__main__":
    main()
