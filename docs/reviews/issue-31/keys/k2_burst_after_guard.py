"""K2: a typing burst that starts just after an agent's navigation. The 600 ms guard eats the first
keys; the rest of the word lands on Batch, where `r` (one key) runs the task under the cursor."""
import asyncio, sys
from lib import *
WORD = sys.argv[1] if len(sys.argv) > 1 else "/error"
START = float(sys.argv[2]) if len(sys.argv) > 2 else 0.30   # person starts typing this long after the switch
GAP = 0.12  # 120 ms between keys (about 80 wpm)
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            # The agent's task: safe steps only, so a run asks nobody. It sorts first.
            e, s = await call(c, "android_batch_save", {"id": "a1", "name": "0-agent-task", "steps": [
                {"tool": "android_launch_app", "arguments": {"packageName": "com.example.notes"}},
                {"tool": "android_input_text", "arguments": {"text": "AGENT WAS HERE"}}]})
            print("save", e, s if e else "ok")
            # The person reads History.
            t.keys("4"); await t.wait_for("History —")
            last_key = time.monotonic()
            # The agent tries to navigate until it is applied (the reason tells it why not).
            tries = 0
            while True:
                tries += 1
                e, r = await call(c, "spock_navigate", {"destination": "batch"})
                if r.get("applied"):
                    break
                if tries == 1: print("refused:", r.get("reason"))
                await asyncio.sleep(0.05)
            sw = time.monotonic()
            print(f"applied after {tries} tries, {sw-last_key:.2f}s after the person's last key")
            # The person, who has been reading History, starts typing a search.
            await asyncio.sleep(START)
            for ch in WORD:
                t.type(ch); await asyncio.sleep(GAP)
            t.keys("Enter")
            await asyncio.sleep(1.5)
            print(t.screen())
            e, h = await call(c, "android_batch_history_list")
            print("batch runs:", [(r["taskId"], r["state"]) for r in h.get("runs", [])])
        await asyncio.sleep(0.5)
        navs=[r for r in t.audit() if r.get("tool")=="spock_navigate"]
        applied_seq = navs[-1]["seq"] if navs else None
        print("navigate records:", len(navs), "last:", json.dumps(navs[-1])[:600] if navs else None)
        for r in t.audit():
            if r.get("tool") != "spock_navigate" or r.get("seq") in (applied_seq,):
                print(json.dumps(r)[:700])
    finally:
        t.kill()
asyncio.run(main())
