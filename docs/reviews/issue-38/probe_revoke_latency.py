from cli import *
async def main():
    A, B = LAB["d1"], LAB["d2"]
    async with Client(relay(), mode="legacy") as c:
        id1, id2, r = await ids(c)
        for trial in range(3):
            write_tree({}); await anyio.sleep(2)
            err, _ = await call(c, "android_get_ui_tree", {"serial": A}, quiet=True); assert not err
            t0 = time.monotonic()
            write_tree({id1: {"inspect": False}})
            ok_after = []; n = 0
            while time.monotonic() - t0 < 3:
                err, r = await call(c, "android_get_ui_tree", {"serial": A, "compact": True}, quiet=True)
                n += 1
                if not err: ok_after.append(round(time.monotonic() - t0, 3))
            print(f"trial {trial}: {len(ok_after)} of {n} UI-tree reads succeeded AFTER revoke was written; last at +{ok_after[-1] if ok_after else None}s")
anyio.run(main)
