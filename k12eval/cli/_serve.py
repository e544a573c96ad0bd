"""Serve a report folder over HTTP on the loopback interface, with Python's own ``http.server``."""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from kg.errors import InputError

HOST = "127.0.0.1"
"""Loopback only: a report holds model outputs and question banks, not for the whole network."""


class _QuietHandler(SimpleHTTPRequestHandler):
    """Static files from one folder; request lines are not logged (the URL was printed once)."""

    def log_message(self, format: str, *args: Any) -> None:
        return

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def report_server(folder: Path, port: int = 8000) -> tuple[ThreadingHTTPServer, str]:
    """A server for ``folder`` bound to 127.0.0.1 (``port`` 0: any free port) and the report's URL.

    The caller runs ``serve_forever()`` and ``server_close()``. A folder without ``index.html``
    or a port in use is an :class:`InputError` saying what to do.
    """
    if not (folder / "index.html").is_file():
        raise InputError(f"{folder}: no index.html here; write a report first (make demo, or k12eval report)")
    handler = functools.partial(_QuietHandler, directory=str(folder.resolve()))
    try:
        server = ThreadingHTTPServer((HOST, port), handler)
    except OSError as exc:
        raise InputError(f"cannot listen on {HOST}:{port} ({exc.strerror}); pass --port 0 for any free port") from None
    return server, f"http://{HOST}:{server.server_address[1]}/index.html"
