"""Reading a run folder's records and scores never follows a file into unbounded memory or time (#32 item 5):
a FIFO or device is refused by name, a line is read within the line cap, a torn tail is skipped in chunks,
and SIGTERM is honoured while a long file is read."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from kg.errors import InputError
from reasoning_metrics.score_store import read_score_lines
from runners.appended import iter_appended, open_appended
from runners.records import RunHeader, RunRecord
from runners.stopping import Terminated, sigterm_raises
from runners.store import RunStore


def _store(tmp_path: Path, *ids: str) -> RunStore:
    store = RunStore(tmp_path / "run")
    store.open(RunHeader(model="tiny", backend="replay", mode="zero-shot"))
    nodes = {"subject": "subject:数学", "level1": "l1:数学/数", "level2": "l2:数学/数/数", "question": "q:x"}
    store.append(
        [
            RunRecord(question_id=q, nodes=nodes, subject="数学", type="single_choice", prompt="p", gold=["A"])
            for q in ids
        ]
    )
    return store


def test_records_linked_to_a_device_are_refused_by_name(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.records_path.unlink()
    store.records_path.symlink_to("/dev/zero")
    with pytest.raises(InputError, match=r"records.jsonl: is a symbolic link, not a regular file"):
        store.records()


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.records_path.unlink()
    os.mkfifo(store.records_path)  # opening it for reading would wait for a writer forever
    with pytest.raises(InputError, match="not a regular file"):
        store.records()
    scores = tmp_path / "run" / "scores.jsonl"
    os.mkfifo(scores)
    with pytest.raises(InputError, match=r"scores.jsonl: is a FIFO, not a regular file"):
        list(read_score_lines(scores, skip_torn=True))


def test_a_line_over_the_cap_is_named_and_never_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K12EVAL_MAX_LINE_CHARS", "4096")
    store = _store(tmp_path, "a")
    with store.records_path.open("ab") as handle:
        handle.write(b'{"question_id": "' + b"x" * 50_000 + b'"}\n')
    with pytest.raises(InputError, match=r"records.jsonl, line 2: line longer than 4,096 bytes"):
        store.records()


def test_a_torn_tail_of_nul_bytes_is_skipped_and_cut_on_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K12EVAL_MAX_LINE_CHARS", "4096")
    store = _store(tmp_path, "a", "b")
    intact = store.records_path.read_bytes()
    with store.records_path.open("ab") as handle:  # what a crash can leave: a block of NULs, no newline
        handle.write(b"\0" * 100_000)
    assert [r.question_id for r in store.records()] == ["a", "b"]
    store.open(RunHeader(model="tiny", backend="replay", mode="zero-shot"))
    assert store.records_path.read_bytes() == intact


def test_a_score_file_with_a_torn_nul_tail_is_read_and_repaired(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K12EVAL_MAX_LINE_CHARS", "4096")
    path = tmp_path / "scores.jsonl"
    path.write_bytes(b'{"id": "a"}\n{"id": "b"}\n' + b"\0" * 100_000)
    assert [r["id"] for _, r in read_score_lines(path, skip_torn=True)] == ["a", "b"]
    assert [r["id"] for _, r in read_score_lines(path, repair=True)] == ["a", "b"]
    assert path.read_bytes() == b'{"id": "a"}\n{"id": "b"}\n'
    path.write_bytes(b'{"id": "a"}\n' + b"\0" * 100_000 + b"\n")
    with pytest.raises(InputError, match=r"scores.jsonl, line 2: line longer than 4,096 bytes"):
        list(read_score_lines(path, skip_torn=True))


def test_sigterm_is_honoured_between_chunks_of_a_long_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A line is read a chunk at a time through Python, so run's SIGTERM handler runs in the middle of it."""
    monkeypatch.setenv("K12EVAL_MAX_LINE_CHARS", "4096")
    path = tmp_path / "records.jsonl"
    path.write_bytes(b"\0" * 10_000_000)
    handle = open_appended(path)
    assert handle is not None
    calls = []
    real = handle.readline

    def readline(size: int = -1) -> bytes:
        calls.append(size)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGTERM)  # arrives while the reader is still inside the line
        return real(size)

    monkeypatch.setattr(handle, "readline", readline)
    with handle, sigterm_raises(), pytest.raises(Terminated):
        list(iter_appended(path, handle))
    assert len(calls) < 10 and max(calls) <= 2**20  # stopped after a few bounded chunks of the 10 MB line
