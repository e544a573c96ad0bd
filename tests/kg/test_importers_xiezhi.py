"""Xiezhi importer: labels placed in the taxonomy, answer text -> letter, degrading without a taxonomy."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

import pytest

from kg.importers import load_questions
from kg.records import QuestionType
from tests.importer_helpers import FIXTURES, assert_names, single_problem, write_jsonl, write_text

ROOT = FIXTURES / "xiezhi"
FILE = ROOT / "xiezhi_mini.jsonl"


def coordinates(path: Path, **options: Any) -> dict[int, tuple[str, str, str]]:
    questions = load_questions(path, "xiezhi", **options).questions
    return {int(q.id.rsplit("/", 1)[1]): (q.subject, q.knowledge.level1, q.knowledge.level2) for q in questions}


def good(**changes: Any) -> dict[str, Any]:
    record = {"question": "1+1=_____", "labels": ["理学", "数学"], "answer": "2", "options": "1\n2\n3\n4"}
    record.update(changes)
    return record


def test_labels_are_placed_at_the_deepest_agreeing_node() -> None:
    assert coordinates(FILE) == {
        1: ("理学", "数学", "应用数学"),  # all three levels given
        2: ("理学", "物理学", "物理学"),  # level 2 unknown: level 1 repeated
        3: ("工学", "工学", "工学"),  # only the 门类
        4: ("经济学", "应用经济学", "统计学"),  # 统计学 is a 二级学科 of 应用经济学 here ...
        5: ("理学", "统计学", "统计学"),  # ... and a 一级学科 of 理学 here
        6: ("理学", "数学", "数学"),  # 工学 does not fit the path: kept in extra only
        7: ("理学", "物理学", "光学"),  # an unknown label beside a known one
    }


def test_record_fields() -> None:
    questions = {q.id: q for q in load_questions(FILE, "xiezhi").questions}
    first = questions["xiezhi/xiezhi_mini/1"]
    assert first.type is QuestionType.SINGLE and first.source == "xiezhi" and first.variant == "original"
    assert [o.label for o in first.options] == ["A", "B", "C", "D"] and first.answer == ["B"]
    assert first.knowledge.path == ["理学", "数学", "应用数学"] and first.knowledge.category == "理学"
    assert questions["xiezhi/xiezhi_mini/6"].extra["labels"] == ["数学", "理学", "工学"]
    assert questions["xiezhi/xiezhi_mini/7"].extra["warnings"] == ["label(s) not in the taxonomy: 天体力学"]
    assert "warnings" not in first.extra


def test_taxonomy_given_explicitly(tmp_path: Path) -> None:
    data = Path(shutil.copy(FILE, tmp_path / "bank.jsonl"))
    tree = ROOT / "discipline_taxonomy" / "subjects_tree_chn.json"
    assert coordinates(data, taxonomy=tree)[4] == ("经济学", "应用经济学", "统计学")
    assert coordinates(data, taxonomy=ROOT)[1] == ("理学", "数学", "应用数学")  # a folder holding it


def test_without_a_taxonomy_questions_are_imported_unplaced(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    data = Path(shutil.copy(FILE, tmp_path / "bank.jsonl"))
    with caplog.at_level(logging.WARNING, logger="kg.importers.xiezhi"):
        questions = load_questions(data, "xiezhi").questions
    assert len(questions) == 7 and "no discipline taxonomy found" in caplog.text
    first = questions[0]
    assert (first.subject, first.knowledge.level1) == ("未归类", "理学 + 数学 + 应用数学")
    assert "not placed" in first.extra["warnings"][0]


def test_explicit_taxonomy_that_is_missing(tmp_path: Path) -> None:
    problem = single_problem(FILE, "xiezhi", taxonomy=tmp_path)
    assert problem.path == tmp_path and "no subjects_tree_chn.json" in str(problem)


@pytest.mark.parametrize(
    ("content", "line", "field", "words"),
    [
        ("{oops", 1, None, ["not valid JSON"]),
        ("[1]", None, None, ["expected {门类"]),
        ('{"理学": ["数学"]}', None, "理学", ["holds a list"]),
        ('{"理学": {"数学": "基础数学"}}', None, "数学", ["list of names"]),
    ],
)
def test_bad_taxonomy_file(tmp_path: Path, content: str, line: int | None, field: str | None, words: list[str]) -> None:
    tree = write_text(tmp_path / "discipline_taxonomy" / "subjects_tree_chn.json", content)
    data = write_jsonl(tmp_path / "bank.jsonl", [good()])
    assert_names(single_problem(data, "xiezhi"), tree, line, field, *words)


@pytest.mark.parametrize(
    ("record", "field", "words"),
    [
        (good(answer="5"), "answer", ["'5' matches no option"]),
        (good(options="2\n2\n3\n4"), "answer", ["matches 2 options (A, B)"]),
        (good(answer=""), "answer", ["text of the right option"]),
        (good(labels=[]), "labels", ["non-empty list"]),
        (good(labels="理学"), "labels", ["non-empty list"]),
        (good(labels=["天文", "地理"]), "labels", ["none of the labels"]),
        (good(question="  "), "question", ["non-empty string"]),
        (good(options="2"), "options", ["at least 2 options"]),
        (good(options="1\n\n2"), "options", ["option 2 is empty"]),
        (good(options=7), "options", ["joined by newlines"]),
        ({"question": "q", "labels": ["理学"], "answer": "a"}, "options", ["missing field"]),
    ],
)
def test_bad_record_names_file_line_and_field(
    tmp_path: Path, record: dict[str, Any], field: str, words: list[str]
) -> None:
    shutil.copytree(ROOT / "discipline_taxonomy", tmp_path / "discipline_taxonomy")
    data = write_jsonl(tmp_path / "bank.jsonl", [good(), record])
    assert_names(single_problem(data, "xiezhi"), data, 2, field, "record xiezhi/bank/2", *words)


def test_malformed_line(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "discipline_taxonomy", tmp_path / "discipline_taxonomy")
    data = write_jsonl(tmp_path / "bank.jsonl", [good(), good(), '{"question": "q", "labels"'])
    assert_names(single_problem(data, "xiezhi"), data, 3, None, "not valid JSON")


def test_many_options_are_a_variant(tmp_path: Path) -> None:
    options = "\n".join(str(n) for n in range(1, 11))
    data = write_jsonl(tmp_path / "bank.jsonl", [good(options=options)])
    question = load_questions(data, "xiezhi", taxonomy=ROOT).questions[0]
    assert question.variant == "options-10" and question.answer == ["B"] and len(question.options) == 10
