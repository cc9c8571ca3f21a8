"""A4: what the source path names. Symlinks (file and directory component), FIFO, char device,
hard link, /proc aliases, '..' escapes from the project, a sparse huge file, a file that keeps
growing while it is read. For each: refused, or exactly which bytes reached the device."""
import asyncio, os, subprocess, threading, time
from lab import *

async def main():
    proj = pathlib.Path(tempfile.mkdtemp(prefix="proj-"))
    (proj / "app").mkdir()
    (proj / "app" / "real.txt").write_bytes(b"project file\n")
    outside = pathlib.Path(tempfile.mkdtemp(prefix="outside-"))
    (outside / "secret.txt").write_bytes(b"OUTSIDE SECRET\n")
    lab = Lab(project=proj)
    try:
        pulls = lab.pulls()
        cases = {}
        os.symlink(outside / "secret.txt", pulls / "link.txt"); cases["symlink file in pulls"] = str(pulls / "link.txt")
        os.symlink(outside, pulls / "dirlink"); cases["symlinked dir component"] = str(pulls / "dirlink" / "secret.txt")
        os.symlink(outside, proj / "app" / "dirlink"); cases["symlinked dir in project (relative)"] = "app/dirlink/secret.txt"
        os.mkfifo(pulls / "fifo"); cases["fifo"] = str(pulls / "fifo")
        subprocess.run(["mknod", str(pulls / "zero"), "c", "1", "5"]); cases["char device /dev/zero node"] = str(pulls / "zero")
        os.link(outside / "secret.txt", pulls / "hard.txt"); cases["hard link"] = str(pulls / "hard.txt")
        cases["dotdot from project to control-credential"] = "../" * 1 + os.path.relpath(lab.home / "config" / "control-credential", proj)
        cases["absolute control-credential"] = str(lab.home / "config" / "control-credential")
        cases["pulls/../config/token"] = str(pulls / ".." / ".." / "config" / "token")
        cases["/proc/self/root alias of pulls file"] = "/proc/self/root" + str(pulls / "ok.txt")
        (pulls / "ok.txt").write_bytes(b"fine\n")
        cases["/proc/<serve>/cwd alias"] = f"/proc/{lab.serve.pid}/root" + str(pulls / "ok.txt")
        cases["/proc/<serve>/fd/0"] = f"/proc/{lab.serve.pid}/fd/0"
        with open(pulls / "sparse.bin", "wb") as f: f.truncate(5 << 30)
        cases["sparse 5 GiB"] = str(pulls / "sparse.bin")
        cases["project dir itself"] = "."
        cases["control.sock"] = str(lab.home / "run" / "control.sock")
        cases["staging dir"] = str(lab.home / "data" / "staging")
        i = 0
        async with lab.agent("pusher") as c:
            for name, lp in cases.items():
                i += 1
                dest = f"/sdcard/Download/a4_{i}"
                try:
                    err, out = await asyncio.wait_for(call(c, "android_push_file", {"localPath": lp, "devicePath": dest}), 25)
                except asyncio.TimeoutError:
                    err, out = True, {"error": "CLIENT TIMEOUT (25 s) - call hung"}
                got = lab.dev_cat(dest)
                leaked = got and got not in (b"fine\n", b"project file\n")
                print(f"--- {name}: {'LEAK/BROKEN' if leaked else 'holds'}  device={got[:40]!r}")
                print(f"    err={err} {json.dumps(out)[:260]}")
            # growing file: a writer appends while the call reads it
            g = pulls / "grow.bin"; g.write_bytes(b"G" * (1 << 20))
            stop = threading.Event()
            def grower():
                with open(g, "ab") as f:
                    while not stop.is_set():
                        f.write(b"H" * 65536); f.flush()
            t = threading.Thread(target=grower); t.start()
            err, out = await call(c, "android_push_file", {"localPath": str(g), "devicePath": "/sdcard/Download/grow.bin"})
            stop.set(); t.join()
            got = lab.dev_cat("/sdcard/Download/grow.bin")
            consistent = (not err) and out.get("bytes") == len(got) and out.get("sha256") == sha(got)
            print(f"--- growing file: reported bytes={out.get('bytes')} sha={str(out.get('sha256'))[:12]} device len={len(got)} sha={sha(got)[:12]} -> {'holds' if consistent or err else 'BROKEN'}")
            if err: print("   ", json.dumps(out)[:300])
    finally:
        lab.close()
asyncio.run(main())
