"""Hostile details of other harnesses' files (#27 item 4, #28 items 2 and 6), through the real CLI.

Lone surrogates are model output and become U+FFFD; a score that is not a finite number fails its
request, named, and the run folder stays readable by resume, ``--retry-failed`` and ``report``;
OpenCompass keys that are not positions and a shard without its first are one located line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.store import RunStore
from tests._runs import question, write_bank
from tests.importer_helpers import write_jsonl, write_text
from tests.runners.backends.test_backend_harness import CMMLU, DATE, cmmlu_bank, lm_eval_line, loglikelihoods


def _run(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback: {result.exception!r}") from result.exception
    return result


def _replay(bank: Path, path: Path, out: Path, *extra: str) -> tuple[str, ...]:
    """The arguments of ``k12eval run`` replaying ``path`` on ``bank`` into ``out``, ``extra`` options before ``-o``."""
    return ("run", str(bank), "-b", "replay", "-m", "m", "-B", f"path={path}", *extra, "-o", str(out))


def test_a_ck12_results_file_with_a_lone_surrogate_on_its_first_line_is_replayed(tmp_path: Path) -> None:
    questions = [question(f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题") for i in range(2)]
    bank = write_bank(tmp_path / "bank", questions)
    replay = tmp_path / "results.jsonl"
    replay.write_text('{"id": "q0", "response": "\\ud83d 答案是 A"}\n{"id": "q1", "response": "B"}\n', encoding="utf-8")
    result = _run(*_replay(bank, replay, tmp_path / "run"))
    assert result.exit_code == 0, result.output
    outputs = {r.question_id: r.output for r in RunStore(tmp_path / "run").records()}
    assert outputs == {"q0": "\ufffd 答案是 A", "q1": "B"}


def test_a_lone_surrogate_in_lm_eval_resps_becomes_a_replacement_character(tmp_path: Path) -> None:
    bank = cmmlu_bank(tmp_path)
    lines = [lm_eval_line(i, item, [["\ud83d 答案：A"]], "cmmlu") for i, item in enumerate(CMMLU)]
    samples = tmp_path / f"samples_cmmlu_agronomy_{DATE}.jsonl"
    samples.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")  # ensure_ascii: \ud83d
    result = _run(*_replay(bank, samples, tmp_path / "run"))
    assert result.exit_code == 0, result.output
    assert {r.output for r in RunStore(tmp_path / "run").records()} == {"\ufffd 答案：A"}


NON_FINITE = ["NaN", "-Infinity", "1e400", "-" + "9" * 400]


@pytest.mark.parametrize("bad", NON_FINITE)
@pytest.mark.slow
def test_a_non_finite_lm_eval_score_fails_its_request_and_the_folder_stays_readable(tmp_path: Path, bad: str) -> None:
    bank = cmmlu_bank(tmp_path)
    lines = [json.dumps(lm_eval_line(i, item, loglikelihoods("A"), "cmmlu")) for i, item in enumerate(CMMLU)]
    lines[1] = lines[1].replace("-3.0", bad, 1)
    samples = tmp_path / f"samples_cmmlu_agronomy_{DATE}.jsonl"
    samples.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = tmp_path / "run"
    args = _replay(bank, samples, run, "--strategy", "rank-options")
    first = _run(*args)
    assert first.exit_code == 1, first.output  # one failed request, named
    records = {r.question_id: r for r in RunStore(run).records()}
    failed = records["cmmlu/test/agronomy/1"]
    assert failed.parse_status == "failed" and failed.error is not None
    assert str(samples) in failed.error and "line 2" in failed.error and "resps" in failed.error
    assert records["cmmlu/test/agronomy/0"].option_scores is not None
    for again in (args, (*args, "--retry-failed")):
        assert _run(*again).exit_code == 1  # resumes, the same request fails the same way
    shown = _run("report", str(run), "--out", str(tmp_path / "report"), "--no-plots")
    assert shown.exit_code == 0, shown.output


def test_an_opencompass_ppl_of_nan_fails_its_request(tmp_path: Path) -> None:
    bank = cmmlu_bank(tmp_path)
    record = {f"label: {x}": {"PPL": 1.0 + i} for i, x in enumerate("ABCD")}
    text = json.dumps({str(i): record for i in range(3)}).replace('"PPL": 2.0', '"PPL": NaN', 1)
    path = write_text(tmp_path / "predictions" / "m" / "cmmlu-agronomy.json", text)
    run = tmp_path / "run"
    result = _run(*_replay(bank, path, run, "--strategy", "rank-options"))
    assert result.exit_code == 1, result.output
    records = {r.question_id: r for r in RunStore(run).records()}
    failed = [qid for qid, r in records.items() if r.parse_status == "failed"]
    assert failed == ["cmmlu/test/agronomy/0"] and "record 0), field 'label: B'" in str(records[failed[0]].error)
    assert _run("report", str(run), "--out", str(tmp_path / "report"), "--no-plots").exit_code == 0


@pytest.mark.parametrize("key", ["²", "٣", "9" * 5000, "-1", "0x1"])
def test_an_opencompass_key_that_is_not_a_position_is_one_located_line(tmp_path: Path, key: str) -> None:
    bank = cmmlu_bank(tmp_path)
    path = write_text(
        tmp_path / "cmmlu-agronomy.json", json.dumps({"0": {"prediction": "A"}, key: {"prediction": "B"}})
    )
    result = _run(*_replay(bank, path, tmp_path / "run"))
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith("error: ") and str(path) in line and "field 'key'" in line and len(line) < 400, line


def test_an_opencompass_shard_without_its_first_is_refused(tmp_path: Path) -> None:
    bank = cmmlu_bank(tmp_path)
    path = write_text(tmp_path / "p" / "cmmlu-agronomy_1.json", json.dumps({"0": {"prediction": "A"}}))
    result = _run(*_replay(bank, path.parent, tmp_path / "run"))
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert str(path) in line and "shard 1 of cmmlu-agronomy" in line and "cmmlu-agronomy_0.json" in line
    assert not (tmp_path / "run" / "records.jsonl").exists()


def test_an_opencompass_jsonl_idx_that_is_not_a_position_is_located(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "tmp_cmmlu-agronomy.jsonl", [{"idx": "0", "prediction": "A"}, {"idx": "²", "prediction": "B"}]
    )
    bank = cmmlu_bank(tmp_path)
    result = _run(*_replay(bank, path, tmp_path / "run", "-B", "format=opencompass"))
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert str(path) in line and "line 2" in line and "field 'idx'" in line


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_no_backends_non_finite_score_reaches_the_records(tmp_path: Path, bad: float) -> None:
    """Any backend (a local model's NaN logits, a plugin), not only replay: that request fails, named."""
    from runners.options import RunOptions
    from runners.run import run_questions
    from tests.scripted import ScriptedBackend

    questions = [question(f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题") for i in range(2)]
    bank = write_bank(tmp_path / "bank", questions)
    backend = ScriptedBackend(score=lambda r: [bad if r.id == "q1" else -1.0, -2.0, -3.0, -4.0])
    options = RunOptions(
        data=bank,
        model="m",
        out=tmp_path / "run",
        backend="scripted",
        backend_instance=backend,
        strategy="rank-options",
    )
    run_questions(options)
    records = {r.question_id: r for r in RunStore(tmp_path / "run").records()}  # readable
    assert records["q0"].option_scores == {"A": -1.0, "B": -2.0, "C": -3.0, "D": -4.0}
    assert records["q1"].parse_status == "failed" and "not finite" in str(records["q1"].error)
