"""`k12eval serve` gives regular files under the report folder only, to loopback host names (#14 finding 10)."""

from __future__ import annotations

import http.client
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from k12eval.cli._serve import report_server

SECRET = b"private key material"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    (tmp_path / "secret.txt").write_bytes(SECRET)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "index.html").write_bytes(SECRET)
    report = tmp_path / "report"
    (report / "plots").mkdir(parents=True)
    (report / "tables").mkdir()
    (report / "index.html").write_text("<h1>report</h1>", encoding="utf-8")
    (report / "plots" / "heatmap.png").write_bytes(b"\x89PNG fake")
    (report / "tables" / "index.html").write_text("tables", encoding="utf-8")
    (report / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (report / "inner-link.html").symlink_to(report / "index.html")
    (report / "elsewhere").symlink_to(tmp_path / "outside")
    os.mkfifo(report / "pipe.html")
    server, _ = report_server(report, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield report, server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def get(port: int, path: str, host: str | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.putrequest("GET", path, skip_host=True)
        connection.putheader("Host", host if host is not None else f"127.0.0.1:{port}")
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_regular_files_are_served(served: tuple[Path, int]) -> None:
    _, port = served
    assert get(port, "/index.html") == (200, b"<h1>report</h1>")
    assert get(port, "/") == (200, b"<h1>report</h1>")
    assert get(port, "/plots/heatmap.png") == (200, b"\x89PNG fake")
    assert get(port, "/tables/") == (200, b"tables")  # a folder with an index.html gives it
    assert get(port, "/index.html?x=1#top")[0] == 200
    assert get(port, "/index.html", host=f"localhost:{port}")[0] == 200


@pytest.mark.parametrize("path", ["/leak.txt", "/elsewhere/index.html", "/elsewhere/", "/inner-link.html"])
def test_symlinks_are_not_followed(served: tuple[Path, int], path: str) -> None:
    status, body = get(served[1], path)
    assert status == 404 and SECRET not in body


@pytest.mark.parametrize("path", ["/plots/", "/plots", "/tables", "/pipe.html", "/missing.html"])
def test_folders_are_not_listed_and_only_regular_files_served(served: tuple[Path, int], path: str) -> None:
    status, body = get(served[1], path)
    assert status == 404 and b"heatmap.png" not in body


@pytest.mark.parametrize(
    "path",
    [
        "/../secret.txt",
        "/plots/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E%2Fsecret.txt",
        "/plots/%2e%2e/%2e%2e/secret.txt",
        "/..%2fsecret.txt",
        "/..%5csecret.txt",
        "/index.html%00.png",
        "//etc/passwd",
        "secret.txt",
    ],
)
def test_traversal_is_refused(served: tuple[Path, int], path: str) -> None:
    status, body = get(served[1], path)
    assert status in (400, 404) and SECRET not in body and b"root:" not in body


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "127.0.0.1.evil.example", "[::1]:80", ""])
def test_foreign_host_headers_are_refused(served: tuple[Path, int], host: str) -> None:
    status, body = get(served[1], "/index.html", host=host)
    assert status in (400, 421) and b"report" not in body
