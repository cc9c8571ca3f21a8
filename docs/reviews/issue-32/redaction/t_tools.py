import anyio, json
from lab import Lab, call
from mcp import Client
async def main():
    lab = Lab()
    try:
        async with Client(lab.relay_params(), mode="legacy") as c:
            for t in (await c.list_tools()).tools:
                ro = t.annotations.read_only_hint if t.annotations else None
                print(t.name, "RO" if ro else "", ",".join(list((t.input_schema or {}).get("properties", {}).keys())[:12]))
            print([r.uri for r in (await c.list_resources()).resources])
            print([p.name for p in (await c.list_prompts()).prompts])
    finally:
        lab.close()
anyio.run(main)
