"""A loopback reverse proxy that adds `Authorization: Bearer <token>` to every request, for
clients that cannot send a header of their own (the official MCP conformance suite has no
option for one). Streams both ways, so SSE replies and the GET event stream pass unchanged.

    python auth_proxy.py UPSTREAM_BASE TOKEN_FILE   # prints "listening <port>" once bound

It binds 127.0.0.1 on a free port, forwards to UPSTREAM_BASE (e.g. http://127.0.0.1:8765), and
reads the token from a file so it never appears in a process listing.
"""
import asyncio
import pathlib
import socket
import sys

import httpx2 as httpx  # the HTTP client the mcp SDK itself uses
import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

HOP = {"host", "content-length", "authorization", "connection", "transfer-encoding", "keep-alive"}


def build(upstream: str, token: str) -> Starlette:
    client = httpx.AsyncClient(base_url=upstream, timeout=httpx.Timeout(60.0, read=None))

    async def forward(request: Request):
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP]
        headers.append(("authorization", f"Bearer {token}"))
        url = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        req = client.build_request(request.method, url, headers=headers, content=await request.body())
        resp = await client.send(req, stream=True)
        out = {k: v for k, v in resp.headers.items() if k.lower() not in HOP | {"content-encoding"}}
        return StreamingResponse(resp.aiter_raw(), status_code=resp.status_code, headers=out,
                                 background=BackgroundTask(resp.aclose))

    methods = ["GET", "POST", "DELETE", "PUT", "OPTIONS", "HEAD", "PATCH"]
    return Starlette(routes=[Route("/{path:path}", forward, methods=methods)])


async def main(upstream: str, token_file: str):
    token = pathlib.Path(token_file).read_text().strip()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(build(upstream, token), log_level="warning", lifespan="off"))
    print(f"listening {sock.getsockname()[1]}", flush=True)
    await server.serve(sockets=[sock])


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
