"""The report's reader of step scores: the scorer's own record model, optional file, torn last line, bad lines named."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kg.errors import InputError
from reports.score_file import Match, load_scores


def _write(run: Path, lines: list[str]) -> None:
    run.mkdir(exist_ok=True)
    (run / "scores.jsonl").write_text("".join(lines), encoding="utf-8")


def test_missing_file_means_no_scores(tmp_path: Path) -> None:
    assert load_scores(tmp_path) == {}


def _record(qid: str, **fields: object) -> str:
    """One line as ``k12eval score`` writes it (the required fields, then ``fields``)."""
    return json.dumps({"id": qid, "question_id": qid, "lang": "zh", "nodes": {}, **fields}, ensure_ascii=False) + "\n"


def test_later_line_wins_and_torn_last_line_is_ignored(tmp_path: Path) -> None:
    _write(
        tmp_path,
        [
            _record("q1", scores={"faithfulness": 0.1}),
            _record("q1", scores={"faithfulness": 0.2, "broken": float("nan")}),
            _record("q2", scores={"faithfulness": 0.3}).rstrip("\n"),  # the scorer is still writing it
        ],
    )
    scores = load_scores(tmp_path)
    assert list(scores) == ["q1"] and scores["q1"].scores == {"faithfulness": 0.2, "broken": None}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json\n", "line 1: not a score record"),
        ('{"id": "q", "lang": "zh", "nodes": {}}\n', "line 1, field 'question_id'"),
        (_record("q", steps={"a": 1}), "line 1, field 'steps'"),
        (_record("q", scores={"x": "high"}), "line 1, field 'scores.x'"),
        (_record("q", steps=[{"index": 0, "text": "a", "flags": ["made_up"]}]), "line 1, field 'steps.0.flags.0'"),
        (_record("q", hypothesis=["an alias of another tool"]), "line 1, field 'hypothesis'"),
        (
            _record("q", combined={"step_probabilities": ["high"], "first_suspect": 0, "score": 1, "threshold": 0.3}),
            "line 1, field 'combined.step_probabilities.0'",
        ),
        (
            _record("q", combined={"step_probabilities": [], "first_suspect": -2, "score": 0, "threshold": 0.3}),
            "line 1, field 'combined.first_suspect'",
        ),
    ],
)
def test_bad_lines_are_named(tmp_path: Path, line: str, message: str) -> None:
    _write(tmp_path, [line])
    with pytest.raises(InputError, match=re.escape(message)):
        load_scores(tmp_path)


def test_the_scorers_step_fields_and_the_detectors_assessment(tmp_path: Path) -> None:
    line = {
        "id": "q1", "question_id": "q1", "lang": "zh", "nodes": {}, "scores": {"faithfulness_step": 0.7},
        "source_steps": ["s0", "s1"], "reference_steps": ["r0"],
        "steps": [
            {"index": 0, "text": "12×3 = 38", "source_index": 1, "source_similarity": 0.8, "reference_index": 0,
             "reference_similarity": 0.6, "contradiction": 0.3, "contradiction_index": 0, "repeat_index": None,
             "repeat_similarity": None, "flags": ["not_in_reference"]},
            {"index": 1, "text": "so 38", "source_index": None, "source_similarity": None,
             "repeat_index": 0, "repeat_similarity": 0.5, "flags": []},
        ],
        "first_suspect": 0,
        "assessment": {
            "id": "q1", "first_suspect": 0, "score": 0.9,
            "steps": [{"index": 0, "suspicion": 0.9, "flags": [
                {"kind": "arithmetic", "severity": 0.9, "message": "12 * 3 = 38 does not hold (36 vs 38)",
                 "evidence": "12 * 3 = 38"}]},
                {"index": 1, "suspicion": 0.8, "flags": [{"kind": "judge", "severity": 0.8, "message": "hand label"}]}],
            "flags": [{"kind": "no_final_answer", "severity": 0.3, "message": "the last step states no final answer"}],
            "unavailable": {"contradiction": "no NLI model for zh text"},
        },
    }  # fmt: skip
    _write(tmp_path, [json.dumps(line, ensure_ascii=False) + "\n"])
    scores = load_scores(tmp_path)["q1"]
    first, second = scores.steps
    assert first.best_source == Match(1, "s1", 0.8) and first.best_reference == Match(0, "r0", 0.6)
    assert first.max_contradiction == Match(0, "s0", 0.3)
    assert first.flags == ("not_in_reference",) and first.values == {}
    assert [(f.kind, f.message, f.severity) for f in first.findings] == [
        ("arithmetic", "12 * 3 = 38 does not hold (36 vs 38)", 0.9)
    ]
    assert first.suspicion == 0.9 and scores.first_suspect == 0
    assert second.best_source is None and second.values == {"repeat_similarity": 0.5}
    assert [f.kind for f in second.findings] == ["judge"] and second.flags == ()
    assert [f.kind for f in scores.solution_findings] == ["no_final_answer"]
    assert scores.detectors_unavailable == {"contradiction": "no NLI model for zh text"}
    del line["first_suspect"]  # the assessment's is used then; -1 (none) reads as no suspect
    line["assessment"]["first_suspect"] = -1  # type: ignore[index]
    _write(tmp_path, [json.dumps(line, ensure_ascii=False) + "\n"])
    assert load_scores(tmp_path)["q1"].first_suspect is None


@pytest.mark.parametrize(
    ("assessment", "field"),
    [
        ([1], "'assessment'"),
        ({"id": "q", "score": 0, "first_suspect": -1, "steps": {}}, "'assessment.steps'"),
        (
            {"id": "q", "score": 0, "first_suspect": -1, "steps": [{"index": 0, "suspicion": 0, "flags": ["x"]}]},
            "'assessment.steps.0.flags.0'",
        ),
        ({"id": "q", "score": 0, "first_suspect": -1, "steps": [], "flags": "none"}, "'assessment.flags'"),
    ],
)
def test_bad_assessments_are_named(tmp_path: Path, assessment: object, field: str) -> None:
    _write(tmp_path, [_record("q", steps=[{"index": 0, "text": "a"}], assessment=assessment)])
    with pytest.raises(InputError, match=re.escape(f"field {field}")):
        load_scores(tmp_path)


def test_the_combiners_probabilities_go_to_the_steps_in_order(tmp_path: Path) -> None:
    """``combined.step_probabilities[i]`` is ``steps[i]``'s (the scorer's order, whatever the step's index);
    -1 (no step reaches the threshold) is no suspect; a record without ``combined`` has none (#15 item 4)."""
    steps = [{"index": i, "text": f"s{i}", "flags": []} for i in (0, 1, 2)]
    verdict = {"step_probabilities": [0.1, 0.7, float("nan")], "first_suspect": 1, "score": 0.7, "threshold": 0.5}
    none = {**verdict, "first_suspect": -1}
    _write(
        tmp_path,
        [
            _record("q1", steps=steps, combined=verdict),
            _record("q2", steps=steps, combined=none),
            _record("q3", steps=steps),
        ],
    )
    scores = load_scores(tmp_path)
    assert [s.probability for s in scores["q1"].steps] == [0.1, 0.7, None]
    assert scores["q1"].combined is not None and (
        scores["q1"].combined.first_suspect,
        scores["q1"].combined.threshold,
    ) == (1, 0.5)
    assert scores["q2"].combined is not None and scores["q2"].combined.first_suspect is None
    assert scores["q3"].combined is None and all(s.probability is None for s in scores["q3"].steps)
