"""Locks and the files a command keeps never follow a link out of their folder (#32 item 3).

Before: ``ln -s ../../victim RUN/.lock`` then a resume truncated the victim and wrote a pid into it
(``scores.jsonl.lock`` the same); a ``records.jsonl`` linked to ``/dev/zero`` took ``report`` to
16.5 GB in 60 s, and ``run`` in that state ignored SIGTERM. Each command now refuses such a file
with one line naming it, at once.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.errors import InputError
from runners.files import lock_file, lock_folder
from tests._runs import SMALL_ANSWERS, small_bank, write_answers, write_bank, write_run, write_scores

REPO = Path(__file__).resolve().parents[2]
VICTIM = "a file somewhere else that no command may touch\n"


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", list(small_bank().values()))


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "elsewhere" / "victim"
    path.parent.mkdir()
    path.write_text(VICTIM, encoding="utf-8")
    return path


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    return write_answers(tmp_path / "answers.jsonl", small_bank())


def _run(bank: Path, answers: Path, out: Path) -> Any:
    return CliRunner().invoke(
        app, ["run", str(bank), "-m", "r", "-b", "replay", "-B", f"path={answers}", "-o", str(out)]
    )


def _run_with(bank: Path, answers: Path, out: Path, name: str, target: str | Path) -> Path:
    """A finished run in ``out`` whose file ``name`` is then replaced by a link to ``target``; returns ``out / name``."""
    assert _run(bank, answers, out).exit_code == 0
    (out / name).unlink()
    (out / name).symlink_to(target)
    return out / name


def _refused(result: Any, path: Path, kind: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert line.startswith(f"error: {path}: is {kind}"), line


def test_a_linked_run_lock_is_refused_and_its_target_untouched(
    bank: Path, answers: Path, victim: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    lock = _run_with(bank, answers, out, ".lock", os.path.relpath(victim, out))
    _refused(_run(bank, answers, out), lock, "a symbolic link")
    assert victim.read_text(encoding="utf-8") == VICTIM


def test_a_linked_score_lock_is_refused_and_its_target_untouched(victim: Path, tmp_path: Path) -> None:
    scores = tmp_path / "run" / "scores.jsonl"
    scores.parent.mkdir()
    (tmp_path / "run" / "scores.jsonl.lock").symlink_to(victim)
    with pytest.raises(InputError, match=r"scores\.jsonl\.lock: is a symbolic link"), lock_file(scores):
        pass
    assert victim.read_text(encoding="utf-8") == VICTIM


def test_a_hard_linked_lock_still_locks_and_keeps_its_content(victim: Path, tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    os.link(victim, tmp_path / "run" / ".lock")
    with lock_folder(tmp_path / "run"):
        pass
    assert victim.read_text(encoding="utf-8") == VICTIM


def test_a_lock_that_is_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    os.mkfifo(tmp_path / "run" / ".lock")
    with pytest.raises(InputError, match="is a FIFO"), lock_folder(tmp_path / "run"):
        pass


def test_records_linked_out_of_the_folder_are_neither_appended_to_nor_cut(
    bank: Path, answers: Path, victim: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    records = _run_with(bank, answers, out, "records.jsonl", victim)
    _refused(_run(bank, answers, out), records, "a symbolic link")
    _refused(
        CliRunner().invoke(app, ["report", str(out), "-o", str(tmp_path / "rep")]),
        out / "records.jsonl",
        "a symbolic link",
    )
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert not (tmp_path / "rep").exists()


def _limited() -> None:
    # The code before this fix read /dev/zero until memory ran out: 2 GiB makes that a quick failure.
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_hard_linked_records_are_neither_cut_nor_appended_to(bank: Path, answers: Path, tmp_path: Path) -> None:
    """Before (#32, fresh round): a resume cut the other name's last line as torn and appended the run to it."""
    out = tmp_path / "run"
    assert _run(bank, answers, out).exit_code == 0
    diary = tmp_path / "diary.txt"
    diary.write_text("a week of notes, no newline at the end", encoding="utf-8")
    (out / "records.jsonl").unlink()
    os.link(diary, out / "records.jsonl")
    result = _run(bank, answers, out)
    assert result.exit_code == 2, result.output
    assert f"error: {out / 'records.jsonl'}: has 2 names (a hard link)" in result.output
    assert diary.read_text(encoding="utf-8") == "a week of notes, no newline at the end"


@pytest.mark.slow
@pytest.mark.parametrize("command", ["run", "report"])
def test_records_linked_to_dev_zero_are_refused_at_once_and_sigterm_is_honoured(
    command: str, bank: Path, answers: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    _run_with(bank, answers, out, "records.jsonl", "/dev/zero")
    args = {
        "run": [str(bank), "-m", "r", "-b", "replay", "-B", f"path={answers}", "-o", str(out), "-q"],
        "report": [str(out), "-o", str(tmp_path / "rep"), "--no-plots"],
    }[command]
    proc = subprocess.Popen([sys.executable, "-m", "k12eval", command, *args], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_limited)  # fmt: skip
    try:
        _, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 2, stderr
    assert stderr.splitlines() == [
        f"error: {out / 'records.jsonl'}: is a symbolic link, not a regular file; k12eval never follows a link or "
        "reads a device for the files it keeps in a folder (locks, records, scores): remove it, or put the file "
        "itself there"
    ]


def test_a_linked_header_or_score_file_is_refused(bank: Path, victim: Path, tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", small_bank(), SMALL_ANSWERS, bank=bank)
    write_scores(run, [{"question_id": "q1"}])
    (run / "scores.jsonl").rename(tmp_path / "scores.jsonl")
    (run / "scores.jsonl").symlink_to("/dev/zero")
    report = ["report", str(run), "-o", str(tmp_path / "rep"), "--no-plots"]
    _refused(CliRunner().invoke(app, report), run / "scores.jsonl", "a symbolic link")
    (run / "scores.jsonl").unlink()
    (tmp_path / "scores.jsonl").rename(run / "scores.jsonl")
    (run / "run.json").rename(tmp_path / "run.json")
    (run / "run.json").symlink_to(tmp_path / "run.json")
    _refused(CliRunner().invoke(app, report), run / "run.json", "a symbolic link")


def test_a_records_file_that_is_a_fifo_is_refused_without_waiting(bank: Path, answers: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _run(bank, answers, out).exit_code == 0
    (out / "records.jsonl").unlink()
    os.mkfifo(out / "records.jsonl")
    _refused(_run(bank, answers, out), out / "records.jsonl", "a FIFO")
