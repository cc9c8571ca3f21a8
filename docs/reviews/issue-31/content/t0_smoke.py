import asyncio, json
from lab import *
async def main():
    lab = Lab()
    try:
        async with lab.agent() as c:
            tools = await c.list_tools()
            for t in tools.tools:
                if t.name in ("android_install_app","android_push_file","android_batch_run_inline","android_open_intent","android_batch_save"):
                    print(t.name, json.dumps(t.input_schema)[:1500])
        print(lab.installed("com.example.shop"))
    finally:
        lab.close()
asyncio.run(main())
