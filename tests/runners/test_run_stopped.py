"""A session of ``run`` that dies still writes ``summary.json`` (#17 item 2, the gap).

A backend error that escapes, Ctrl-C (``KeyboardInterrupt``) and SIGTERM stop a session mid-run:
the summary then describes the records written so far, says how the session ended and why in
one line, and the command exits non-zero. No record is lost and the same command resumes.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.backends import ENTRY_POINT_GROUP
from runners.backends.base import GenerationRequest, GenerationResult
from runners.options import RunOptions
from runners.run import run_questions
from runners.store import RunStore
from runners.summary import SUMMARY_FILE, RunResults
from runners.testing.openai_server import Faults, OpenAIServer
from tests._runs import question, write_bank
from tests.scripted import ScriptedBackend

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = [
    question(f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题：下列函数中是一次函数的是") for i in range(5)
]


class DyingBackend(ScriptedBackend):
    """Answers ``A`` for ``batches`` batches, then raises ``error`` (a CUDA error, a Ctrl-C...)."""

    def __init__(self, model: str = "dying", *, batches: int = 2, error: str = "runtime") -> None:
        super().__init__("答案是 A", model=model)
        self.left = batches
        self.error = error

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        if self.left == 0:
            if self.error == "interrupt":
                raise KeyboardInterrupt
            raise RuntimeError("CUDA error: out of memory\nTried to allocate 2.00 GiB")
        self.left -= 1
        return super().generate(requests)


def _options(bank: Path, out: Path, backend: Any = None) -> RunOptions:
    return RunOptions(data=bank, model="dying", out=out, backend="dying", backend_instance=backend, batch_size=2)


def _summary(out: Path) -> RunResults:
    return RunResults.model_validate_json((out / SUMMARY_FILE).read_text(encoding="utf-8"))


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", QUESTIONS)


@pytest.mark.parametrize(
    ("error", "raised", "status", "reason"),
    [
        ("runtime", RuntimeError, "failed", "RuntimeError: CUDA error: out of memory"),
        ("interrupt", KeyboardInterrupt, "interrupted", "KeyboardInterrupt"),
    ],
)
def test_a_session_that_dies_writes_what_it_did_and_why(
    error: str, raised: type[BaseException], status: str, reason: str, bank: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    with pytest.raises(raised):
        run_questions(_options(bank, out, DyingBackend(error=error)), command=["k12eval", "run"])
    summary = _summary(out)
    assert (summary.session.status, summary.session.reason) == (status, reason)  # one line: the first of the error
    assert summary.status["ok"] == 4 and summary.all.n == 4  # two batches of two were written
    assert (summary.questions, summary.pending) == (5, 1)
    assert summary.session.new == 4 and summary.session.ended_at >= summary.session.started_at
    assert len(RunStore(out).records()) == 4  # every record written before the error is kept

    again = run_questions(_options(bank, out, ScriptedBackend("答案是 A")), command=["k12eval", "run"])
    assert again.new == 1 and again.resumed == 4
    resumed = _summary(out)
    assert (resumed.session.status, resumed.session.reason, resumed.pending) == ("finished", None, 0)
    assert resumed.status["ok"] == 5


def test_a_session_refused_before_it_opened_the_folder_leaves_the_summary_alone(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_questions(_options(bank, out, ScriptedBackend("答案是 A")), command=["k12eval", "run"])
    before = (out / SUMMARY_FILE).read_bytes()
    other = RunOptions(data=bank, model="other", out=out, backend="dying", backend_instance=DyingBackend(batches=0))
    with pytest.raises(Exception, match="holds a different run"):
        run_questions(other, command=["k12eval", "run"])
    assert (out / SUMMARY_FILE).read_bytes() == before  # the other run's summary is not this session's


class _EntryPoint:
    def __init__(self, name: str, target: type) -> None:
        self.name, self.group, self.target = name, ENTRY_POINT_GROUP, target

    def load(self) -> type:
        return self.target


@pytest.mark.parametrize(("error", "code", "status"), [("runtime", 1, "failed"), ("interrupt", 130, "interrupted")])
def test_the_cli_exits_non_zero_after_writing_the_summary(
    error: str, code: int, status: str, bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "importlib.metadata.entry_points",
        lambda group=None: [_EntryPoint("dying", DyingBackend)] if group == ENTRY_POINT_GROUP else [],
    )
    out = tmp_path / "run"
    args = ["run", str(bank), "-m", "dying", "-b", "dying", "-B", f"error={error}", "-o", str(out), "--batch-size", "2"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == code, result.output
    summary = _summary(out)
    assert summary.session.status == status and summary.status["ok"] == 4
    if error == "interrupt":
        assert "Traceback" not in result.output
        assert result.output.strip().splitlines()[-1].startswith("error: interrupted (KeyboardInterrupt)")


def test_sigterm_writes_the_summary_and_exits_143(bank: Path, tmp_path: Path) -> None:
    # Two answers, then the server holds the third request until the test has stopped the run.
    server = OpenAIServer(ScriptedBackend("答案是 A"), Faults(hold_after=2)).start()  # type: ignore[arg-type]
    out, log = tmp_path / "run", tmp_path / "stderr.log"
    command = [sys.executable, "-m", "k12eval", "run", str(bank), "-m", "scripted", "-b", "openai",
               "-B", f"base_url={server.base_url}", "-B", "timeout_s=3600", "-o", str(out), "--batch-size", "1"]  # fmt: skip
    try:
        with log.open("w") as err:
            process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err)
            server.wait_until_held(alive=lambda: process.poll() is None)
            process.send_signal(signal.SIGTERM)
            code = process.wait()
    finally:
        server.stop()
    text = log.read_text(encoding="utf-8")
    assert code == 128 + signal.SIGTERM, text
    assert "Traceback" not in text and text.strip().splitlines()[-1].startswith("error: interrupted (SIGTERM)")
    summary = _summary(out)
    written = RunStore(out).records()
    assert (summary.session.status, summary.session.reason) == ("interrupted", "SIGTERM")
    assert summary.status["ok"] == len(written) == 2 and summary.pending == 5 - len(written)


KILLED_SESSION = """
import os, signal, sys
from pathlib import Path
from runners.options import RunOptions
from runners.run import run_questions
from tests.scripted import ScriptedBackend

class Killed(ScriptedBackend):
    left = 1  # one batch answered and written, then the kill: no handler, no finally runs

    def generate(self, requests):
        if self.left == 0:
            os.kill(os.getpid(), signal.SIGKILL)
        self.left -= 1
        return super().generate(requests)

bank, out = map(Path, sys.argv[1:3])
backend = Killed("答案是 A", model="dying")
options = RunOptions(data=bank, model="dying", out=out, backend="dying", backend_instance=backend, batch_size=2)
run_questions(options, command=["k12eval", "run"])
"""


def test_a_session_killed_by_sigkill_leaves_no_summary_that_reads_as_the_runs(bank: Path, tmp_path: Path) -> None:
    """SIGKILL runs no handler: the summary the session would have rewritten at its end must not be left
    describing the records of the session before (work-loss audit, item 2): ``run_job``'s tracking upload, a
    script or ``run --json``'s reader would print a figure that is not the run's."""
    from runners.results_file import RESULTS_FILE

    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run_questions(_options(bank, out, DyingBackend(batches=1, error="interrupt")), command=["k12eval", "run"])
    assert _summary(out).all.n == 2  # the first session's summary: two records

    child = subprocess.run(
        [sys.executable, "-c", KILLED_SESSION, str(bank), str(out)], cwd=REPO, capture_output=True, timeout=600
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    records = RunStore(out).records()
    assert len(records) == 4  # the killed session's batch is kept
    if (out / SUMMARY_FILE).exists():  # absent, or describing the four records: never the two
        assert _summary(out).all.n == len(records)
    if (out / RESULTS_FILE).exists():
        samples = json.loads((out / RESULTS_FILE).read_text(encoding="utf-8"))["n-samples"]
        assert sum(n["effective"] for n in samples.values()) == len(records)

    again = run_questions(_options(bank, out, ScriptedBackend("答案是 A", model="dying")), command=["k12eval", "run"])
    assert (again.resumed, again.new) == (4, 1)
    assert _summary(out).all.n == 5 and (out / RESULTS_FILE).is_file()  # the session's end writes both again
