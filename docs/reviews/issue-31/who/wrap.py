"""wrap.py MODE NAME CMD...: be the relay's parent under a chosen identity.
MODE comm   : set own comm (prctl PR_SET_NAME) to NAME, then run CMD as a child, wait.
MODE argv0  : re-exec python with argv[0]=NAME (cmdline spoof) then run CMD as child.
MODE orphan : spawn CMD and exit at once (CMD reparents to init / a subreaper).
MODE reaper : set comm NAME, become child subreaper, fork an intermediate that spawns CMD and exits."""
import ctypes, os, sys, subprocess, time
mode, name, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
libc = ctypes.CDLL(None)
def setcomm(n):
    libc.prctl(15, n.encode()[:15], 0, 0, 0)
if mode == "comm":
    setcomm(name)
    sys.exit(subprocess.call(cmd))
if mode == "argv0":
    if os.environ.get("_WRAPPED") != "1":
        os.environ["_WRAPPED"] = "1"
        os.execv(sys.executable, [name, os.path.abspath(__file__), mode, name] + cmd)
    sys.exit(subprocess.call(cmd))
if mode == "orphan":
    subprocess.Popen(cmd)
    os._exit(0)
if mode == "reaper":
    setcomm(name)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    if os.fork() == 0:
        subprocess.Popen(cmd)
        os._exit(0)
    os.wait()
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    sys.exit(0)
