"""Serve a report folder over HTTP on the loopback interface, with Python's own ``http.server``.

Only regular files inside the folder are served: no directory listings, no
symbolic links (a link could point anywhere on the disk), no ``..``. A request
whose ``Host`` header names another host is refused (421), so a web page that
rebinds its own domain name to 127.0.0.1 cannot read the report. A browser that
closes a connection early (a reload, a closed tab) ends that request quietly.

Where the system opens files relative to a folder without following links (Linux, macOS, the
BSDs) each step of a path is opened so; elsewhere (Windows: no ``O_NOFOLLOW``, ``O_DIRECTORY``
or ``dir_fd``) each step is checked with ``lstat`` (no link, no junction) and the file opened
must be the one checked.
"""

from __future__ import annotations

import functools
import os
import stat
import sys
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlsplit

from kg.errors import InputError

HOST = "127.0.0.1"
"""Loopback only: a report holds model outputs and question banks, not for the whole network."""
HOST_NAMES = frozenset({"127.0.0.1", "localhost"})
"""Names a browser on this machine uses for the server; any other ``Host`` is refused."""


class _ReportHandler(SimpleHTTPRequestHandler):
    """Regular files under one folder; request lines are not logged (the URL was printed once)."""

    def log_message(self, format: str, *args: Any) -> None:
        return

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def send_head(self) -> IO[bytes] | None:  # type: ignore[override]
        """Headers and the open file for GET and HEAD; an error page instead where refused."""
        if not _host_allowed(self.headers.get("Host")):
            self.send_error(HTTPStatus.MISDIRECTED_REQUEST, "unknown host")
            return None
        parts = _url_parts(self.path)
        if parts is None:
            self.send_error(HTTPStatus.BAD_REQUEST, "bad path")
            return None
        opened = _open_regular(Path(self.directory), parts)
        if opened is None:
            self.send_error(HTTPStatus.NOT_FOUND, "not found")
            return None
        handle, size, name = opened
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", self.guess_type(name))
        self.send_header("Content-Length", str(size))
        self.end_headers()
        return handle


def _host_allowed(host: str | None) -> bool:
    """``Host`` names this server (any port); a request without one (HTTP/1.0) is let through."""
    if host is None:
        return True
    name = host.strip().lower()
    if name.startswith("["):
        return False  # bound to IPv4 loopback only
    return name.rsplit(":", 1)[0] in HOST_NAMES


def _url_parts(path: str) -> list[str] | None:
    """The decoded path segments of a request target; ``None`` for ``..``, NUL or backslashes."""
    raw = urlsplit(path).path
    if not raw.startswith("/"):
        return None
    parts = [unquote(p) for p in raw.split("/")[1:]]
    if any(p in (".", "..") or "/" in p or "\\" in p or "\0" in p for p in parts):
        return None
    if parts[-1] == "":  # a folder URL: its index.html, if it has one
        parts[-1] = "index.html"
    return parts if all(parts) else None  # "//" is no path of ours


def _open_regular(root: Path, parts: list[str]) -> tuple[IO[bytes], int, str] | None:
    """Open ``root/parts`` without following any link; ``None`` unless it is a regular file.

    Each step is opened relative to the folder before it with ``O_NOFOLLOW``, so a link
    swapped in while the request runs is refused as well.
    """
    if not parts:
        return None
    if not _at_calls():
        return _open_checked(root, parts)
    try:
        folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)
            os.close(folder)
            folder = inner
        # O_NONBLOCK: a FIFO opens at once (and is then refused) instead of hanging the request.
        fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError:
        return None
    finally:
        os.close(folder)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        return None
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb"), info.st_size, parts[-1]


def _at_calls() -> bool:
    """Whether this system opens a path step by step without following links (not Windows)."""
    return all(hasattr(os, name) for name in ("O_NOFOLLOW", "O_DIRECTORY")) and os.open in os.supports_dir_fd


def _open_checked(root: Path, parts: list[str]) -> tuple[IO[bytes], int, str] | None:
    """:func:`_open_regular` where there are no ``*at`` calls: every step ``lstat``-ed, then the file opened
    and compared with what was checked (a link swapped in meanwhile opens another file, and is refused)."""
    if any(":" in part for part in parts):  # Windows: a drive ("C:") or a data stream, never a file of ours
        return None
    path = root
    try:
        for part in parts[:-1]:
            path = path / part
            if not _plain(os.lstat(path), stat.S_ISDIR):
                return None
        path = path / parts[-1]
        checked = os.lstat(path)
        if not _plain(checked, stat.S_ISREG):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except (OSError, ValueError):
        return None
    info = os.fstat(fd)
    if (info.st_dev, info.st_ino) != (checked.st_dev, checked.st_ino) or not stat.S_ISREG(info.st_mode):
        os.close(fd)
        return None
    return os.fdopen(fd, "rb"), info.st_size, parts[-1]


def _plain(info: os.stat_result, kind: Any) -> bool:
    """``info`` is of ``kind`` and no link: no symbolic link, no Windows junction or other reparse point."""
    reparse = getattr(info, "st_file_attributes", 0) & getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0)
    return bool(kind(info.st_mode)) and not stat.S_ISLNK(info.st_mode) and not reparse


class _ReportServer(ThreadingHTTPServer):
    """The threaded server, quiet when a browser closes a connection before its file was sent."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError):  # BrokenPipeError, ConnectionResetError, ConnectionAbortedError
            return
        sys.stderr.write(f"warning: a request failed ({type(error).__name__}: {error}); the server goes on\n")


def report_server(folder: Path, port: int = 8000) -> tuple[ThreadingHTTPServer, str]:
    """A server for ``folder`` bound to 127.0.0.1 (``port`` 0: any free port) and the report's URL.

    The caller runs ``serve_forever()`` and ``server_close()``. A folder without ``index.html``
    or a port in use is an :class:`InputError` saying what to do.
    """
    if not (folder / "index.html").is_file():
        raise InputError(f"{folder}: no index.html here; write a report first (make demo, or k12eval report)")
    handler = functools.partial(_ReportHandler, directory=str(folder.resolve()))
    try:
        server = _ReportServer((HOST, port), handler)
    except OSError as exc:
        raise InputError(f"cannot listen on {HOST}:{port} ({exc.strerror}); pass --port 0 for any free port") from None
    return server, f"http://{HOST}:{server.server_address[1]}/index.html"
