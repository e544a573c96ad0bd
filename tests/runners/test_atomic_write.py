"""``runners.files.atomic_write``: a text and its UTF-8 bytes take one path (it had a text branch and a bytes
branch, each opening, writing and syncing the file its own way): the same bytes, the same failure, the same file."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from runners.files import atomic_write

TEXT = '第一行\r\n第二行\n{"k": "值"}\n'
"""Chinese, a CRLF and LF line ends: a text-mode write on Windows would have made every \\n a \\r\\n."""


@pytest.mark.parametrize("content", [TEXT, TEXT.encode("utf-8")], ids=["text", "bytes"])
def test_a_text_is_written_as_its_utf8_bytes_line_ends_as_they_are(tmp_path: Path, content: str | bytes) -> None:
    path = tmp_path / "out.json"
    atomic_write(path, content)
    assert path.read_bytes() == TEXT.encode("utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


@pytest.mark.parametrize("content", [TEXT, TEXT.encode("utf-8")], ids=["text", "bytes"])
def test_a_full_disk_keeps_the_old_file_names_it_and_leaves_no_temporary(
    tmp_path: Path, content: str | bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "out.json"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as caught:
        atomic_write(path, content)
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(path)
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["out.json"]
    monkeypatch.undo()
    atomic_write(path, content)
    assert path.read_bytes() == TEXT.encode("utf-8") and path.stat().st_mode & 0o777 == 0o640


def test_a_text_that_is_not_utf8_stops_before_any_file(tmp_path: Path) -> None:
    with pytest.raises(UnicodeEncodeError):
        atomic_write(tmp_path / "out.txt", "a lone surrogate \udc80")
    assert list(tmp_path.iterdir()) == []
