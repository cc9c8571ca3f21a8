"""A3: agent-controlled text reaching the terminal raw. Payload = OSC title set, a DSR
(ESC[5n, which would make the TERMINAL send a forged fence answer ESC[0n), the 8-bit CSI
U+009B form, BEL, a bare CR and a cursor-position query. Put into: the client name, a
destructive call's package name (drawn in the modal), a typing call's text, a batch task name,
a navigate screen name, and an error result. Oracle: the program's raw output (captured by the
link), the pane title, the count of ESC[5n the program wrote vs. ESC[0n the terminal sent."""
import asyncio, sys
from lib import *
P = "X\x1b]2;PWNED\x07\x1b[5n\u009b5n\x1b[6n\r\x07Y"
async def main():
    t = Tui(up=0.3, down=0.3)
    rawdown = t.home / "rawdown.bin"; t.set_link(rawdown=str(rawdown))
    try:
        await t.wait_for("[running]", timeout=40)
        async with client(t, "evil" + P) as c:
            for tool, args in [("spock_get_status", {}),
                               ("android_input_text", {"text": "hello" + P}),
                               ("android_batch_save", {"id": "b" , "name": "task" + P, "steps": [{"tool": "android_get_battery_info", "arguments": {}}]}),
                               ("spock_navigate", {"destination": "history" + P}),
                               ("android_launch_app", {"packageName": "com.nope" + P}),
                               ("android_call_app_function", {"packageName": "com.example.notes", "functionId": "createNote", "parameters": {"title": "t" + P, "body": "b" + P}})]:
                try:
                    e, r = await asyncio.wait_for(call(c, tool, args), 8)
                    print(tool, "err" if e else "ok", str(r)[:120].encode("unicode_escape").decode())
                except Exception as ex:
                    print(tool, "EXC", repr(ex)[:120])
            task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName": "com.example.notes" + P}))
            await asyncio.sleep(3)
            for k in "1234": t.keys(k); await asyncio.sleep(0.8)
            t.keys("Escape"); await asyncio.sleep(0.5); t.keys("n")
            await result_of(task, 5)
            await asyncio.sleep(1.5)
        data = rawdown.read_bytes()
        print("raw output bytes:", len(data))
        for name, needle in [("OSC title", b"\x1b]2;PWNED"), ("DSR-from-payload", b"\x1b[5n\xc2\x9b"), ("C1 CSI", b"\xc2\x9b"),
                             ("CPR query", b"\x1b[6n"), ("BEL", b"\x07"), ("PWNED text", b"PWNED")]:
            i = data.find(needle)
            print(f"{name}: count={data.count(needle)}", repr(data[max(0,i-30):i+30]) if i >= 0 else "")
        print("ESC[5n written:", data.count(b"\x1b[5n"))
        ups = t.linklog()
        print("ESC[0n answers from terminal:", ups.count("\\x1b[0n"), " CPR answers:", ups.count("R'"))
        print("pane title:", repr(t.title()))
        print("pane dead:", t.pane_dead())
    finally:
        t.kill()
asyncio.run(main())
