"""A chain's arithmetic checks are computed once (#36): ``k12eval score`` (the aggregate and the learned
combiner's features) and ``k12eval meta-eval`` (each detector alone, the aggregate, the combiner) read one
:func:`~reasoning_metrics.verify.aggregate_rule.checks_of` per chain, and write what every reader computing its
own checks wrote.

The run is Chinese: the bundled sample's math, physics and chemistry questions (``data/sample``, what
``make demo`` runs on), each answered by its own analysis behind a ``解：``, through the real commands.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg.records import Question
from tests._runs import Answer, write_run

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample"
SUBJECTS = ("数学", "物理", "化学")


def _spy(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, ...]]:
    """How many times ``check_steps`` ran on each list of steps, wherever a module bound the name."""
    import k12eval.cli  # noqa: F401  (the commands' modules, imported so that their names are bound now)
    import reasoning_metrics.combine.apply
    import reasoning_metrics.metaeval.detectors
    import reasoning_metrics.run_scoring  # noqa: F401
    from reasoning_metrics.verify.rules import arithmetic

    original = arithmetic.check_steps
    calls: Counter[tuple[str, ...]] = Counter()

    def counting(steps: list[str], question: str = "") -> list[arithmetic.StepCheck]:
        calls[tuple(steps)] += 1
        return original(steps, question)

    for module in list(sys.modules.values()):
        if module is not None and vars(module).get("check_steps") is original:
            monkeypatch.setattr(module, "check_steps", counting)
    return calls


def _chinese_questions() -> list[Question]:
    """The bundled sample's Chinese math, physics and chemistry questions with an analysis."""
    from kg.importers import load_questions
    from kg.records import detect_language

    questions = load_questions(SAMPLE).questions
    chosen = [q for q in questions if q.subject in SUBJECTS and q.analysis and detect_language(q.stem) == "zh"]
    assert len(chosen) >= 10
    return chosen


def _sample_run(tmp_path: Path) -> Path:
    questions = {q.id: q for q in _chinese_questions()}
    answers = {qid: Answer(correct=True, output="解：" + q.analysis) for qid, q in questions.items()}
    return write_run(tmp_path / "run", questions, answers, mode="zero-shot-cot", bank=SAMPLE)


@pytest.mark.slow
def test_score_checks_each_chain_once_and_writes_what_checking_per_reader_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from k12eval.cli import app
    from reasoning_metrics.combine import load_combiner
    from reasoning_metrics.combine.apply import combine_one
    from reasoning_metrics.run_scoring import run_chains
    from reasoning_metrics.score_store import ScoreRecord
    from reasoning_metrics.verify.rules.arithmetic import check_steps
    from reasoning_metrics.verify.scored import assess_scored, roscoe_detail

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    run_dir = _sample_run(tmp_path)
    calls = _spy(monkeypatch)
    result = CliRunner().invoke(app, ["score", str(run_dir), "--data", str(SAMPLE), "--nli", "none", "--no-cache"])
    assert result.exit_code == 0, result.output
    lines = (run_dir / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    records = [ScoreRecord.model_validate_json(line) for line in lines]
    assert json.loads((run_dir / "scores.json").read_text(encoding="utf-8"))["combiner"].startswith("default")
    chains = [tuple(step.text for step in r.steps) for r in records]
    assert len(chains) >= 10 and all(r.combined is not None for r in records)
    assert {steps: calls[steps] for steps in chains} == dict.fromkeys(chains, 1)  # was 2: aggregate, combiner
    monkeypatch.undo()

    # Each reader computing its own checks, as before: the assessments and the combiner's verdicts are the file's.
    run = run_chains(run_dir, SAMPLE)
    graded = {record.question_id: record.correct for record, _ in run.chains}
    why = records[0].assessment.unavailable["contradiction"] if records[0].assessment else ""
    fresh = assess_scored(records, run.problems, {"zh": why, "en": why}, premises=run.stems, references=run.references)
    combiner = load_combiner("default")
    for record, assessment, steps in zip(records, fresh, chains, strict=True):
        assert assessment == record.assessment
        reference = run.references.get(record.id)
        combined = combine_one(
            combiner,
            steps,
            assessment,
            roscoe_detail(record),
            graded[record.question_id],
            source=run.problems[record.id],
            analysis=reference.analysis if reference is not None else None,
            checks=check_steps(steps, run.problems[record.id]),
        )
        assert combined == record.combined


def test_meta_eval_checks_each_solution_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from k12eval.cli import app

    chains = [
        {
            "id": q.id,
            "problem": q.stem,
            "steps": ["解："] + [p for p in q.analysis.split("\n\n") if p.strip()],
            "first_error": -1 if k % 2 else 1,
            "lang": "zh",
        }
        for k, q in enumerate(_chinese_questions())
    ]
    data = tmp_path / "chains.jsonl"
    data.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in chains), encoding="utf-8")
    calls = _spy(monkeypatch)
    args = ["meta-eval", str(data), "--format", "chains", "--encoder", "none", "--boot", "0"]
    result = CliRunner().invoke(app, [*args, "-d", "arithmetic,equations,aggregate,combiner"])
    assert result.exit_code == 0, result.output
    assert "| arithmetic " in result.output and "| combiner " in result.output
    solutions = [tuple(c["steps"]) for c in chains]
    assert {steps: calls[steps] for steps in solutions} == dict.fromkeys(solutions, 1)  # was 2: alone, aggregate
