"""Reading ProcessBench, MR-MATH and chains files, and the errors bad records give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kg.errors import InputError
from reasoning_metrics.metaeval.data import load_solutions, split_numbered
from tests.reasoning_metrics.verify import samples


def test_processbench_labels(tmp_path: Path) -> None:
    solutions = load_solutions(samples.write_processbench(tmp_path / "pb.json"), "processbench")
    first = solutions[0]
    assert (first.id, first.has_error, first.first_error, first.target) == ("pb-0", True, 1, 1)
    assert first.step_labels == (False, True, None)
    assert solutions[1].step_labels == (False, False, False) and solutions[1].target == -1
    assert first.meta["generator"] == "test"


def test_mr_math_and_mr_gsm8k_shapes(tmp_path: Path) -> None:
    records = [
        {
            "uuid": "m1",
            "question": "Q",
            "model_output_steps": "Step 1: 2 + 2 = 4\nStep 2: 4 * 3 = 13\nStep 3: answer 13",
            "model_output_solution_correctness": "wrong",
            "model_output_solution_first_error_step": 2,
        },
        {
            "id": 7,
            "question": "Q",
            "model_output_step_format": [["1. a"], ["2. b", "more b"]],
            "model_output_solution_correctness": "correct",
            "model_output_solution_first_error_step": "N/A",
        },
        {
            "uuid": "m3",
            "question": "Q",
            "model_output_steps": ["a", "b"],
            "model_output_solution_correctness": "wrong",
            "model_output_solution_first_error_step": "N/A",
        },
    ]
    path = tmp_path / "mr.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    m1, m2, m3 = load_solutions(path, "mr-math")
    assert m1.steps == ("Step 1: 2 + 2 = 4", "Step 2: 4 * 3 = 13", "Step 3: answer 13") and m1.first_error == 1
    assert m2.id == "7" and m2.steps == ("1. a", "2. b\nmore b") and m2.target == -1
    assert m3.has_error and m3.first_error is None and m3.target is None and m3.step_labels == (None, None)


def test_split_numbered() -> None:
    assert split_numbered("Intro\n1. a\n2. b") == ["Intro", "1. a", "2. b"]
    assert split_numbered("first line\nsecond line") == ["first line", "second line"]


def test_chains_labels_and_derived_first_error(tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = [
        {"id": "c1", "problem": "Q", "steps": ["a", "b", "c"], "step_labels": [0, 1, None]},
        {"id": "c2", "problem": "Q", "steps": ["a", "b"], "first_error": -1},
        {"id": "c3", "problem": "Q", "steps": ["a", "b"], "step_labels": [None, 1]},
    ]
    path = samples.write_jsonl(tmp_path / "c.jsonl", lines)
    c1, c2, c3 = load_solutions(path, "chains")
    assert (c1.first_error, c1.step_labels) == (1, (False, True, None))
    assert (c2.has_error, c2.step_labels) == (False, (False, False))
    assert c3.has_error and c3.first_error is None  # step 0 unlabelled: the first wrong step is not known


@pytest.mark.parametrize(
    ("fmt", "content", "message"),
    [
        (
            "processbench",
            '[{"id": "x", "problem": "Q", "steps": ["a"], "label": 3}]',
            "record 0 (line 1), field 'label'",
        ),
        ("processbench", '[{"id": "x", "problem": "Q", "label": -1}]', "record 0 (line 1): missing field 'steps'"),
        ("processbench", "[1, 2]", "record 0 (line 1): expected a JSON object"),
        ("processbench", "[{", "not valid JSON"),
        (
            "chains",
            '{"id": "a", "problem": "Q", "steps": ["a"], "first_error": -1}\n{"id": "b"',
            "line 2: not valid JSON",
        ),
        (
            "chains",
            '{"id": "a", "problem": "Q", "steps": ["a"]}',
            "line 1: needs 'step_labels' or 'first_error'",
        ),
        (
            "chains",
            '{"id": "a", "problem": "Q", "steps": ["a", "b"], "step_labels": [0]}',
            "field 'step_labels'",
        ),
        (
            "chains",
            '{"id": "a", "problem": "Q", "steps": ["a", "b"], "step_labels": [0, 1], "first_error": 0}',
            "disagrees",
        ),
        ("chains", '{"id": "a", "problem": "Q", "steps": [], "first_error": -1}', "field 'steps'"),
        (
            "mr-math",
            '[{"question": "Q", "model_output_steps": ["a"], "model_output_solution_correctness": "maybe"}]',
            "correct or wrong",
        ),
    ],
)
def test_bad_records_name_file_record_and_field(tmp_path: Path, fmt: str, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_solutions(path, fmt)
    assert str(path) in str(caught.value) and message in str(caught.value)


def test_duplicate_ids_and_unknown_format(tmp_path: Path) -> None:
    path = samples.write_jsonl(
        tmp_path / "d.jsonl", [{"id": "a", "problem": "Q", "steps": ["s"], "first_error": -1}] * 2
    )
    with pytest.raises(InputError, match="duplicate solution id 'a'"):
        load_solutions(path, "chains")
    with pytest.raises(InputError, match="unknown format"):
        load_solutions(path, "csv")
