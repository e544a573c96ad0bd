"""CK12 importer: variants by folder layout, the six types, and every kind of bad record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg.errors import InputError
from kg.importers import load_questions
from kg.records import QuestionType, Stage
from tests.importer_helpers import FIXTURES, assert_names, ck12_record, single_problem, write_jsonl

ROOT = FIXTURES / "ck12"


def by_id(path: Path, **options: Any) -> dict[str, Any]:
    return {q.id: q for q in load_questions(path, "ck12", **options).questions}


def test_release_root_reads_the_original_variant() -> None:
    questions = by_id(ROOT)
    assert len(questions) == 9
    assert {q.variant for q in questions.values()} == {"original"}
    first = questions["m-single-1"]
    assert first.stage is Stage.MIDDLE and first.subject == "数学" and first.group == "science"
    assert (first.knowledge.category, first.knowledge.level1, first.knowledge.level2) == ("知识点", "数与式", "实数")
    assert first.knowledge.path == ["初中", "数学", "数与式", "实数"]
    assert first.answer == ["B"] and [o.text for o in first.options][1] == "$$\\sqrt{2}$$"
    assert first.analysis.startswith("$$\\sqrt{2}$$") and first.semester == "上学期"


@pytest.mark.parametrize(
    ("variant", "answer", "n_options"), [("original", "B", 4), ("shuffled", "C", 4), ("distractors", "C", 14)]
)
def test_variant_chosen_at_the_root(variant: str, answer: str, n_options: int) -> None:
    question = by_id(ROOT, variant=variant)["m-single-1"]
    assert question.variant == variant
    assert question.answer == [answer] and len(question.options) == n_options


def test_variant_read_from_the_folder_when_pointing_below_the_root() -> None:
    folder = ROOT / "adding_10_distractor_options" / "初中"
    assert {q.variant for q in by_id(folder).values()} == {"distractors"}
    file = ROOT / "shuffle_options" / "初中" / "数学" / "单选.jsonl"
    assert by_id(file)["m-single-1"].variant == "shuffled"


def test_unknown_variant_is_refused() -> None:
    with pytest.raises(InputError, match="unknown variant"):
        load_questions(ROOT, variant="reversed")


def test_cloze_options_restart_per_blank() -> None:
    cloze = by_id(ROOT)["e-cloze-1"]
    assert cloze.type is QuestionType.CLOZE and cloze.language == "en"
    assert [[o.label for o in blank] for blank in cloze.blanks()] == [list("ABCD"), list("ABCD")]
    assert [o.blank for o in cloze.options] == [1, 1, 1, 1, 2, 2, 2, 2]
    assert cloze.answer == ["B", "A"] and cloze.knowledge.category == "题型"


def test_judgment_statements_are_numbered_and_answered_one_by_one() -> None:
    questions = by_id(ROOT)
    judge = questions["m-judge-1"]
    assert [o.label for o in judge.options] == ["1", "2", "3"]
    assert judge.options[1].text == "负数没有平方根"
    assert judge.answer == [True, True, False]
    assert questions["m-judge-2"].answer == [True]  # written 对


def test_single_choice_with_two_letters_becomes_multiple_with_a_warning() -> None:
    question = by_id(ROOT)["m-single-2"]
    assert question.type is QuestionType.MULTIPLE and question.answer == ["A", "C"]
    assert "labelled 单选" in question.extra["warnings"][0]
    assert "warnings" not in by_id(ROOT)["m-single-1"].extra


def test_fill_sorting_and_multiple_answers() -> None:
    questions = by_id(ROOT)
    assert questions["m-fill-1"].answer == ["50", "0.8"] and questions["m-fill-1"].options == []
    assert questions["m-sort-1"].answer == ["A", "C", "B"]
    assert questions["m-multi-1"].answer == ["B", "D"]


@pytest.mark.parametrize(
    ("record", "field", "words"),
    [
        (ck12_record(task_type="问答"), "task_type", ["unknown question type"]),
        (ck12_record(answer="E"), "answer", ["'E'", "ABCD"]),
        (ck12_record(answer="?"), "answer", ["expected option letters"]),
        (ck12_record(task_grade="大学"), "task_grade", ["unknown school stage"]),
        (ck12_record(knowledge_domain=["初中", "数学", "知识点"]), "knowledge_domain", ["level-2"]),
        (ck12_record(answer_option=["1", "2"]), "answer_option", ["label like 'A.'"]),
        (ck12_record(answer_option="A.1 B.2"), "answer_option", ["list of strings"]),
        (ck12_record(id=""), "id", ["non-empty string"]),
        (ck12_record(task_type="判断", answer_option=["1.甲", "2.乙"], answer="T"), "answer", ["1 true/false", "2"]),
        (ck12_record(task_type="判断", answer_option=["1.甲"], answer="Q"), "answer", ["T/F"]),
        (ck12_record(task_type="填空", answer_option=[], answer=" ; "), "answer", ["empty fill-in"]),
    ],
)
def test_bad_record_names_file_line_and_field(
    tmp_path: Path, record: dict[str, Any], field: str, words: list[str]
) -> None:
    file = write_jsonl(tmp_path / "初中" / "数学" / "单选.jsonl", [ck12_record(id="ok"), record])
    problem = single_problem(file, "ck12")
    assert_names(problem, file, 2, field, *words)


def test_missing_field_is_named(tmp_path: Path) -> None:
    record = ck12_record()
    del record["difficulty"]
    file = write_jsonl(tmp_path / "a.jsonl", [record])
    assert_names(single_problem(file, "ck12"), file, 1, "difficulty", "missing field", "record r1")


def test_malformed_line_names_the_line(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path / "a.jsonl", [ck12_record(id="a"), '{"id": "b", "prompt": ', ck12_record(id="c")])
    assert_names(single_problem(file, "ck12"), file, 2, None, "not valid JSON")


def test_a_line_that_is_not_an_object(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path / "a.jsonl", [ck12_record(id="a"), "[1, 2]"])
    assert_names(single_problem(file, "ck12"), file, 2, None, "expected a JSON object")


def test_duplicate_ids_are_bad_records(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path / "a.jsonl", [ck12_record(), ck12_record()])
    problem = single_problem(file, "ck12")
    assert problem.field == "id" and "duplicate question id 'r1'" in str(problem)


def test_skip_invalid_counts_by_field(tmp_path: Path) -> None:
    file = write_jsonl(
        tmp_path / "a.jsonl",
        [
            ck12_record(id="1"),
            ck12_record(id="2", answer="E"),
            ck12_record(id="3", answer="Z"),
            "oops",
            ck12_record(id="4"),
        ],
    )
    result = load_questions(file, "ck12", skip_invalid=True)
    assert [q.id for q in result.questions] == ["1", "4"]
    assert result.skipped_by_reason() == {"answer": 2, "record": 1}
    assert [p.line for p in result.problems] == [2, 3, 4]


def test_no_files_for_the_variant(tmp_path: Path) -> None:
    (tmp_path / "original_data").mkdir()
    with pytest.raises(InputError, match="no CK12 JSONL files"):
        load_questions(tmp_path, "ck12")


def test_language_is_read_from_the_stem_prose_not_the_options(tmp_path: Path) -> None:
    # 语文 pinyin options and a formula-only stem were detected as English (#16 item 1).
    records = [
        ck12_record(
            id="pinyin",
            prompt="下列加粗的字注音正确的是",
            answer_option=["A.zhuó mó", "B.pián yi", "C.xiè dú", "D.qiè ér bù shě"],
            task_subject="语文",
        ),
        ck12_record(id="formula", prompt="$$-2017$$的倒数是(  )", answer_option=["A.2017", "B.-2017", "C.x", "D.y"]),
        ck12_record(id="english", prompt="It's very kind $$\\underline{}$$ you to help me.", task_subject="英语"),
    ]
    questions = by_id(write_jsonl(tmp_path / "a.jsonl", records))
    assert {k: q.language for k, q in questions.items()} == {"pinyin": "zh", "formula": "zh", "english": "en"}


# The release's 小学/数学/判断.jsonl lines 633 and 713 have this shape: a stem of one newline and
# five numbered statements that are the question (statements invented here, #26 item 2).
STATEMENTS = ["1.整数都比小数大．（判断对错）\n", "2.$$0.5$$和$$0.50$$大小相等．（判断对错）\n"]


def test_judgment_with_an_empty_stem_is_asked_by_its_statements(tmp_path: Path) -> None:
    record = ck12_record(id="j0", prompt="\n", task_type="判断", answer_option=STATEMENTS, answer="FT")
    file = write_jsonl(tmp_path / "小学" / "数学" / "判断.jsonl", [ck12_record(id="ok"), record])
    question = by_id(file)["j0"]
    assert question.type is QuestionType.JUDGMENT and question.stem == ""
    assert [o.text for o in question.options] == [
        "整数都比小数大．（判断对错）",
        "$$0.5$$和$$0.50$$大小相等．（判断对错）",
    ]
    assert question.answer == [False, True] and question.language == "zh"


@pytest.mark.parametrize(
    "record",
    [
        ck12_record(prompt="\n"),  # a single choice with no stem asks nothing
        ck12_record(prompt=" ", task_type="判断", answer_option=[], answer="T"),  # nor a judgment with no statements
        ck12_record(prompt="", task_type="填空", answer_option=[], answer="3"),
    ],
)
def test_other_empty_stems_stay_refused(tmp_path: Path, record: dict[str, Any]) -> None:
    file = write_jsonl(tmp_path / "a.jsonl", [record])
    assert_names(single_problem(file, "ck12"), file, 1, "prompt", "empty")
