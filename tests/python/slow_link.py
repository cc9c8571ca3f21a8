#!/usr/bin/env python3
"""A slow link between a terminal and a program, the way an SSH session to a far lab machine
is one: the program runs on a pty of its own, and every byte is passed on DELAY seconds after
it was read, in both directions (a round trip is twice DELAY). Window-size changes pass at
once. Run inside the terminal (a tmux pane):

    python3 slow_link.py 0.35 -- spock-tui attach
"""
import fcntl
import os
import pty
import select
import signal
import sys
import termios
import time
import tty


def copy_size(src, dst):
    try:
        packed = fcntl.ioctl(src, termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(dst, termios.TIOCSWINSZ, packed)
    except OSError:
        pass


def main():
    delay = float(sys.argv[1])
    cmd = sys.argv[sys.argv.index("--") + 1 :]
    pid, master = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    copy_size(stdin, master)
    signal.signal(signal.SIGWINCH, lambda *_: (copy_size(stdin, master), os.kill(pid, signal.SIGWINCH)))
    saved = termios.tcgetattr(stdin)
    tty.setraw(stdin)
    # (due time, bytes) queues, one per direction.
    to_prog, to_term = [], []
    child_done = False
    try:
        while True:
            now = time.monotonic()
            for q, fd in ((to_prog, master), (to_term, stdout)):
                while q and q[0][0] <= now:
                    try:
                        os.write(fd, q.pop(0)[1])
                    except OSError:
                        pass
            if child_done and not to_term:
                break
            due = [q[0][0] for q in (to_prog, to_term) if q]
            timeout = max(0.0, min(due) - now) if due else 0.5
            fds = [stdin] + ([] if child_done else [master])
            try:
                ready, _, _ = select.select(fds, [], [], timeout)
            except InterruptedError:
                continue
            for fd in ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    data = b""
                if fd == master and not data:
                    child_done = True
                    continue
                if fd == stdin and not data:
                    raise SystemExit(0)
                (to_prog if fd == stdin else to_term).append((time.monotonic() + delay, data))
    finally:
        termios.tcsetattr(stdin, termios.TCSADRAIN, saved)
        try:
            _, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            status = 0
    sys.exit(os.waitstatus_to_exitcode(status) if status else 0)


if __name__ == "__main__":
    main()
