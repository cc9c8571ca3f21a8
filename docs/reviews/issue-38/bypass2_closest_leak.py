"""BYPASS 2: Inspect OFF on A (Interact on). Element actions that miss return a "closest on
screen" list of A's nodes (texts, descriptions, ids, bounds); hits echo the node's text. No
returnScreen involved. Also through a batch step's error. Self-contained."""
from freshlab import *
async def main():
    lab = Lab()
    try:
        A = lab.A
        async with Client(lab.inst.relay_params(), mode="legacy") as c:
            idA, idB = await identities(c, lab.A, lab.B)
            await c.call_tool("android_launch_app", {"serial": A, "packageName": NOTES})
            lab.write_tree({idA: {"inspect": False}})
            await until_refused(c, "android_get_ui_tree", {"serial": A})
            print("get_ui_tree / find_ui_element refused:", (await c.call_tool("android_find_ui_element", {"serial": A, "element": "x"})).is_error)
            for name, args in [
                ("android_tap_element", {"serial": A, "element": "zz-no-such-node"}),
                ("android_long_press_element", {"serial": A, "element": "zz-no-such-node"}),
                ("android_perform_action", {"serial": A, "element": "zz-no-such-node", "action": "click"}),
                ("android_scroll_to_element", {"serial": A, "element": "zz-no-such-node", "maxScrolls": 1}),
                ("android_input_text_into_element", {"serial": A, "element": "zz-no-such-node", "text": "x"}),
                ("android_input_text_into_element", {"serial": A, "selector": {"role": "text", "index": 2}, "text": "x"}),
                ("android_tap_element", {"serial": A, "selector": {"role": "text", "index": 3}}),
            ]:
                r = await c.call_tool(name, args)
                print(f"{name} {json.dumps(args)[:80]} -> {short(r.structured_content, 420)}\n")
            r = await c.call_tool("android_batch_run_inline", {"name": "leak", "steps": [{"tool": "android_tap_element", "arguments": {"serial": A, "element": "zz-no-such-node"}}]})
            rid = r.structured_content["runId"]; await anyio.sleep(2)
            h = (await c.call_tool("android_batch_history_get", {"runId": rid})).structured_content
            print("batch step error:", h["steps"][0].get("error"))
    finally:
        lab.close()
anyio.run(main)
