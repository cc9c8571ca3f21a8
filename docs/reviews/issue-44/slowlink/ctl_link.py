#!/usr/bin/env python3
"""slow_link.py with a control file (argv[1], JSON re-read when it changes):
  {"up": s, "down": s, "stall": bool, "split": bool, "log": path}
up = delay terminal->program, down = program->terminal. stall: hold everything (both ways).
split: deliver terminal->program one byte per write, 40 ms apart. Logs bytes terminal->program
(and escapes program->terminal containing ESC[5n counts) to log."""
import fcntl, json, os, pty, select, signal, sys, termios, time, tty

DSR = b"\x1b[5n"

def copy_size(src, dst):
    try:
        fcntl.ioctl(dst, termios.TIOCSWINSZ, fcntl.ioctl(src, termios.TIOCGWINSZ, b"\0" * 8))
    except OSError:
        pass

def main():
    ctl = sys.argv[1]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    pid, master = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    copy_size(stdin, master)
    signal.signal(signal.SIGWINCH, lambda *_: (copy_size(stdin, master), os.kill(pid, signal.SIGWINCH)))
    saved = termios.tcgetattr(stdin)
    tty.setraw(stdin)
    conf, mtime = {"up": 0.0, "down": 0.0}, None
    logf = None
    to_prog, to_term = [], []
    done = False
    try:
        while True:
            try:
                m = os.stat(ctl).st_mtime_ns
                if m != mtime:
                    mtime = m
                    conf = json.load(open(ctl))
                    if conf.get("log") and logf is None:
                        logf = open(conf["log"], "a", buffering=1)
            except Exception:
                pass
            now = time.monotonic()
            if not conf.get("stall") and not conf.get("freeze"):
                while to_term and to_term[0][0] <= now:
                    data = to_term.pop(0)[1]
                    if logf and b"\x1b[5n" in data:
                        logf.write("%.3f DOWN dsr x%d\n" % (time.time(), data.count(DSR)))
                    if conf.get("rawdown"):
                        with open(conf["rawdown"], "ab") as rf: rf.write(data)
                    try: os.write(stdout, data)
                    except OSError: pass
                while to_prog and to_prog[0][0] <= now:
                    data = to_prog.pop(0)[1]
                    if logf:
                        logf.write(f"{time.time():.3f} UP {data!r}\n")
                    if conf.get("split") and len(data) > 1:
                        for i in range(len(data)):
                            try: os.write(master, data[i:i+1])
                            except OSError: pass
                            time.sleep(0.04)
                    else:
                        try: os.write(master, data)
                        except OSError: pass
            if done and not to_term:
                break
            due = [q[0][0] for q in (to_prog, to_term) if q]
            timeout = 0.05 if conf.get("stall") else (max(0.0, min(min(due) - now, 0.2)) if due else 0.2)
            fds = [] if conf.get("freeze") else [stdin] + ([] if done else [master])
            if conf.get("freeze"):
                time.sleep(0.05); continue
            try:
                ready, _, _ = select.select(fds, [], [], timeout)
            except InterruptedError:
                continue
            for fd in ready:
                try: data = os.read(fd, 65536)
                except OSError: data = b""
                if fd == master and not data:
                    done = True; continue
                if fd == stdin and not data:
                    raise SystemExit(0)
                d = conf.get("up", 0.0) if fd == stdin else conf.get("down", 0.0)
                (to_prog if fd == stdin else to_term).append((time.monotonic() + d, data))
    finally:
        termios.tcsetattr(stdin, termios.TCSADRAIN, saved)
        try: os.kill(pid, signal.SIGTERM)
        except Exception: pass

if __name__ == "__main__":
    main()
