"""HTTP servers on loopback addresses for the LTI tests, each in a thread of this process: the
test platform runs on one, and ``InternalService`` stands for an address inside the site's
network that a hostile platform would have the tool call (SSRF): a second server, on another
loopback address, that records whoever reached it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def served(host: str, on_request: Callable[[BaseHTTPRequestHandler, str], None]) -> Iterator[ThreadingHTTPServer]:
    """An HTTP server on ``host`` (a loopback address) and a free port, in a thread of its own,
    that hands each GET and POST to ``on_request``; stopped when the block ends."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            on_request(self, "GET")

        def do_POST(self) -> None:
            on_request(self, "POST")

    server = ThreadingHTTPServer((host, 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def respond(request: BaseHTTPRequestHandler, status: int, headers: dict[str, str], payload: bytes) -> None:
    """Send ``request`` its whole answer: the status, ``headers`` with the length, the payload."""
    request.send_response(status)
    for name, value in headers.items():
        request.send_header(name, value)
    request.send_header("Content-Length", str(len(payload)))
    request.end_headers()
    request.wfile.write(payload)


@dataclass
class LoopbackServer:
    """Something served on a loopback address: where it is, once it is serving."""

    server: ThreadingHTTPServer | None = field(default=None, kw_only=True)

    @property
    def base_url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"


@dataclass
class InternalService(LoopbackServer):
    """An HTTP server on 127.0.0.2 (loopback, another host than the platform's 127.0.0.1) that
    answers every request with ``answer`` and records its method, path and Authorization header."""

    answer: tuple[int, dict[str, str], bytes] = (200, {"Content-Type": "application/json"}, b'{"members": []}')
    requests: list[dict[str, str]] = field(default_factory=list)

    @property
    def host(self) -> str:
        return self.base_url.removeprefix("http://")

    def record(self, request: BaseHTTPRequestHandler, method: str) -> None:
        self.requests.append(
            {"method": method, "path": request.path, "authorization": request.headers.get("Authorization", "")}
        )
        respond(request, *self.answer)

    @contextmanager
    def serving(self) -> Iterator[InternalService]:
        with served("127.0.0.2", self.record) as self.server:
            yield self
