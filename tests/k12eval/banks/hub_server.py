"""A dataset hub on 127.0.0.1 that answers the few routes ``huggingface_hub.snapshot_download`` asks, so the real
library writes its real cache layout in the tests (no network beyond this machine).

The routes are those of the hub's public API as ``huggingface_hub`` calls them: the repository's revision
(``/api/datasets/{repo}/revision/{rev}``: its commit ``sha`` and ``siblings``), its file tree
(``/api/datasets/{repo}/tree/{rev}?recursive=...``: ``type``, ``path``, ``size``, ``oid``) and each file
(``HEAD`` / ``GET /datasets/{repo}/resolve/{rev}/{path}`` with ``X-Repo-Commit``, ``ETag`` and the size).
Files are plain git blobs (no LFS, no Xet), which every version of the library downloads over HTTP.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit


def _blob_id(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


class FakeHub:
    """Dataset repositories (``repo id -> {path: bytes}``) served at :attr:`url` while in a ``with`` block."""

    def __init__(self, repos: dict[str, dict[str, bytes]]) -> None:
        self.repos = repos
        self.commits = {
            repo: hashlib.sha1(json.dumps(sorted((p, _blob_id(c)) for p, c in files.items())).encode()).hexdigest()
            for repo, files in repos.items()
        }
        self.requests: list[str] = []
        self.url = ""

    @contextmanager
    def serving(self) -> Iterator[FakeHub]:
        """Serve until the block ends; :attr:`requests` lists every request line."""
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:
                pass

            def do_HEAD(self) -> None:
                hub._answer(self, body=False)

            def do_GET(self) -> None:
                hub._answer(self, body=True)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()
            thread.join()

    def _repo(self, parts: list[str]) -> str | None:
        repo = "/".join(parts[:2])
        return repo if repo in self.repos else None

    def _answer(self, handler: BaseHTTPRequestHandler, *, body: bool) -> None:
        self.requests.append(f"{handler.command} {handler.path}")
        parts = [unquote(p) for p in urlsplit(handler.path).path.strip("/").split("/")]
        if parts[:2] == ["api", "datasets"] and len(parts) >= 5 and self._repo(parts[2:]):
            repo = self._repo(parts[2:])
            assert repo is not None
            if parts[4] == "revision":
                files = sorted(self.repos[repo])
                info = {
                    "id": repo,
                    "author": repo.split("/")[0],
                    "sha": self.commits[repo],
                    "lastModified": "2024-01-01T00:00:00.000Z",
                    "createdAt": "2023-05-01T00:00:00.000Z",
                    "private": False,
                    "gated": False,
                    "disabled": False,
                    "downloads": 0,
                    "likes": 0,
                    "tags": [],
                    "cardData": {},
                    "siblings": [{"rfilename": f} for f in files],
                }
                return self._json(handler, info, body)
            if parts[4] == "tree":
                tree = [
                    {"type": "file", "path": p, "size": len(c), "oid": _blob_id(c)}
                    for p, c in sorted(self.repos[repo].items())
                ]
                return self._json(handler, tree, body)
        if parts[:1] == ["datasets"] and len(parts) >= 6 and parts[3] == "resolve" and self._repo(parts[1:]):
            repo = self._repo(parts[1:])
            assert repo is not None
            content = self.repos[repo].get("/".join(parts[5:]))
            if content is not None:
                handler.send_response(200)
                handler.send_header("X-Repo-Commit", self.commits[repo])
                handler.send_header("ETag", f'"{_blob_id(content)}"')
                handler.send_header("Content-Length", str(len(content)))
                handler.end_headers()
                if body:
                    handler.wfile.write(content)
                return None
        handler.send_response(404)
        handler.send_header("X-Error-Code", "RepoNotFound" if parts[:2] == ["api", "datasets"] else "EntryNotFound")
        handler.send_header("Content-Length", "0")
        handler.end_headers()
        return None

    @staticmethod
    def _json(handler: BaseHTTPRequestHandler, data: object, body: bool) -> None:
        payload = json.dumps(data).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        if body:
            handler.wfile.write(payload)
