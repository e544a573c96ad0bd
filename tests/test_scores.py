"""The one loader of step scores: aliases, optional file, torn last line, bad lines named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg.errors import InputError
from kg.scores import load_scores


def _write(run: Path, lines: list[str]) -> None:
    run.mkdir(exist_ok=True)
    (run / "scores.jsonl").write_text("".join(lines), encoding="utf-8")


def test_missing_file_means_no_scores(tmp_path: Path) -> None:
    assert load_scores(tmp_path) == {}


def test_fields_and_aliases(tmp_path: Path) -> None:
    line = {
        "question_id": "q1",
        "metrics": {"faithfulness": 0.5, "redundancy": None, "broken": float("nan")},
        "hypothesis": ["a", "b"],
        "reference": [{"text": "r0"}],
        "first_suspect_step": 1,
        "steps": [
            {"index": 0, "text": "a", "flags": ["repeats"], "best_reference": {"index": 0, "text": "r0", "score": 0.9},
             "max_contradiction": {"probability": 0.2, "source_index": 3, "text": "s3"}, "detector": 0.7},
            "b",
        ],
    }  # fmt: skip
    _write(tmp_path, [json.dumps(line) + "\n"])
    scores = load_scores(tmp_path)["q1"]
    assert scores.scores == {"faithfulness": 0.5, "redundancy": None, "broken": None}
    assert scores.hypothesis_steps == ("a", "b") and scores.reference_steps == ("r0",)
    assert scores.first_suspect == 1
    first, second = scores.steps
    assert first.flags == ("repeats",) and first.values == {"detector": 0.7}
    assert first.best_reference is not None and first.best_reference.score == 0.9
    assert first.max_contradiction is not None and (first.max_contradiction.index, first.max_contradiction.score) == (
        3,
        0.2,
    )
    assert (second.index, second.text, second.flags) == (1, "b", ())


def test_later_line_wins_and_torn_last_line_is_ignored(tmp_path: Path) -> None:
    _write(
        tmp_path,
        [
            '{"question_id": "q1", "scores": {"faithfulness": 0.1}}\n',
            '{"question_id": "q1", "scores": {"faithfulness": 0.2}}\n',
            '{"question_id": "q2", "scores": {"faith',
        ],
    )
    scores = load_scores(tmp_path)
    assert list(scores) == ["q1"] and scores["q1"].scores == {"faithfulness": 0.2}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json\n", "line 1: not valid JSON"),
        ('{"scores": {}}\n', "field 'question_id'"),
        ('{"question_id": "q", "steps": {"a": 1}}\n', "field 'steps'"),
        ('{"question_id": "q", "scores": {"x": true}}\n', "field 'scores.x'"),
    ],
)
def test_bad_lines_are_named(tmp_path: Path, line: str, message: str) -> None:
    _write(tmp_path, [line])
    with pytest.raises(InputError, match=message):
        load_scores(tmp_path)
