"""BYPASS 6 (lower severity): Inspect OFF on A, Interact on. android_list_app_functions is refused
(an Inspect read), but android_call_app_function returns app data (searchNotes -> note titles)
and its errors enumerate the app's functions and their parameters; android_launch_app's
"not installed" vs ok is a package-existence oracle. Self-contained."""
from freshlab import *
async def main():
    lab = Lab()
    try:
        A = lab.A
        async with Client(lab.inst.relay_params(), mode="legacy") as c:
            idA, idB = await identities(c, lab.A, lab.B)
            lab.write_tree({idA: {"inspect": False}})
            await until_refused(c, "android_take_screenshot", {"serial": A})
            for name, args in [
                ("android_list_app_functions", {"serial": A}),
                ("android_list_packages", {"serial": A}),
                ("android_call_app_function", {"serial": A, "packageName": NOTES, "functionId": "nope", "arguments": {}}),
                ("android_call_app_function", {"serial": A, "packageName": NOTES, "functionId": "createNote", "arguments": {}}),
                ("android_call_app_function", {"serial": A, "packageName": NOTES, "functionId": "searchNotes", "arguments": {"query": "e"}}),
                ("android_launch_app", {"serial": A, "packageName": "com.example.notes"}),
                ("android_launch_app", {"serial": A, "packageName": "com.whatsapp"}),
            ]:
                r = await c.call_tool(name, args)
                sc = r.structured_content
                print(f"{name} {json.dumps({k: v for k, v in args.items() if k != 'serial'})} -> is_error={r.is_error} {short(sc.get('error') if r.is_error else sc, 200)}")
    finally:
        lab.close()
anyio.run(main)
