"""The mapped format: your own JSONL / CSV plus a TOML mapping file (and the example shipped in docs/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg.errors import SettingError
from kg.importers import load_questions
from kg.records import QuestionType, Stage
from tests.conftest import REPO
from tests.importer_helpers import FIXTURES, assert_names, single_problem, write_jsonl, write_text

EXAMPLE = REPO / "docs" / "examples"
JSONL = FIXTURES / "mapped"
CSV_MAPPING = """
type = "type"
stem = "stem"
options = ["A", "B", "C", "D"]
answer = "answer"
subject = { value = "数学" }
level1 = "unit"
"""
CSV_HEADER = "type,stem,A,B,C,D,answer,unit\n"


def load(data: Path, mapping: Path) -> dict[str, Any]:
    return {q.id: q for q in load_questions(data, mapping=mapping).questions}


def test_the_documented_example_imports() -> None:
    questions = load(EXAMPLE / "bank.csv", EXAMPLE / "mapping.toml")
    assert sorted(questions) == ["p-001", "p-002", "p-003", "p-004", "p-005"]
    single = questions["p-001"]
    assert single.source == "my-school" and single.subject == "物理" and single.stage is Stage.MIDDLE
    assert single.answer == ["B"] and single.options[1].text == "铜钥匙" and single.difficulty == "易"
    assert (single.knowledge.level1, single.knowledge.level2) == ("电流和电路", "导体和绝缘体")
    assert single.analysis == "金属容易导电。" and single.extra == {"出处": "2023 期中"}
    assert questions["p-002"].type is QuestionType.MULTIPLE and questions["p-002"].answer == ["A", "C"]
    judge = questions["p-003"]
    assert judge.answer == [False, True] and [o.label for o in judge.options] == ["1", "2"]
    fill = questions["p-004"]
    assert fill.answer == ["50", "竖直向下"] and fill.options == []
    assert "\n" in questions["p-005"].stem


def test_jsonl_with_lists_constants_and_labelled_options() -> None:
    questions = load(JSONL / "bank.jsonl", JSONL / "mapping.toml")
    assert questions["j1"].language == "en" and questions["j1"].stage is Stage.HIGH
    assert questions["j1"].options[1].text == "Carbon dioxide" and questions["j1"].extra == {"tags": ["easy"]}
    assert questions["j2"].answer == ["A", "C"] and questions["j2"].options[0].text == "鲸"  # label stripped
    assert questions["j3"].answer == [True, False]
    assert questions["j4"].type is QuestionType.FILL and questions["j4"].answer == ["叶绿体", "有机物"]
    assert questions["j5"].answer == ["37"]
    assert questions["j4"].knowledge.level2 == "植物"  # level 1 repeated


def test_ids_default_to_file_and_line(tmp_path: Path) -> None:
    data = write_text(tmp_path / "bank.csv", CSV_HEADER + "单选,题一,甲,乙,,,B,第一章\n判断,对吗,,,,,×,第二章\n")
    mapping = write_text(tmp_path / "m.toml", CSV_MAPPING)
    questions = load(data, mapping)
    assert sorted(questions) == ["bank/2", "bank/3"]
    assert [o.label for o in questions["bank/2"].options] == ["A", "B"]  # trailing empty cells dropped
    assert questions["bank/3"].answer == [False] and questions["bank/3"].options == []


def test_separator_and_tsv(tmp_path: Path) -> None:
    data = write_text(tmp_path / "bank.tsv", "q\topts\tgold\nWhich is even?\t1|2|3\tB\n")
    mapping = write_text(
        tmp_path / "m.toml",
        'type = { value = "single_choice" }\nstem = "q"\noptions = { column = "opts", separator = "|" }\n'
        'answer = "gold"\nsubject = { value = "Math" }\nlevel1 = { value = "Numbers" }\n',
    )
    question = load_questions(data, mapping=mapping).questions[0]
    assert [o.text for o in question.options] == ["1", "2", "3"] and question.answer == ["B"]


def test_cloze_options_in_one_column_keep_their_blanks(tmp_path: Path) -> None:
    record = {"s": "I ( 1 ) a ( 2 ).", "o": "A.am\nB.is\nA.boy\nB.boys", "a": "AA", "t": "完形填空"}
    data = write_jsonl(tmp_path / "bank.jsonl", [record])
    mapping = write_text(
        tmp_path / "m.toml",
        'type = "t"\nstem = "s"\noptions = "o"\nanswer = "a"\nsubject = { value = "英语" }\nlevel1 = { value = "完形" }\n',
    )
    question = load_questions(data, mapping=mapping).questions[0]
    assert [o.blank for o in question.options] == [1, 1, 2, 2] and question.answer == ["A", "A"]


@pytest.mark.parametrize(
    ("row", "field", "words"),
    [
        ("单选,题,甲,乙,丙,丁,E,章", "answer", ["'E'", "ABCD"]),
        ("单选,题,甲,乙,,,C,章", "answer", ["'C'", "AB"]),
        ("单选,题,甲,乙,丙,丁,AB,章", "answer", ["one letter"]),
        ("单选,题,甲,乙,丙,丁,,章", "answer", ["empty answer"]),
        ("问答,题,甲,乙,丙,丁,A,章", "type", ["unknown question type"]),
        ("单选,  ,甲,乙,丙,丁,A,章", "stem", ["empty stem"]),
        ("单选,题,甲,乙,丙,丁,A,", "unit", ["empty level1"]),
        ("单选,题,甲,,丙,丁,A,章", "A, B, C, D", ["option column 'B' is empty"]),
        ("单选,题,,,,,A,章", "A, B, C, D", ["needs options"]),
        ("判断,题,甲,乙,,,T,章", "answer", ["1 true/false answers for 2 statements"]),
        ("判断,题,甲,乙,,,T;?,章", "answer", ["T/F"]),
        ("单选,题,甲,乙,丙,丁,A", None, ["expected 8 columns, found 7"]),
    ],
)
def test_bad_row_names_file_line_and_column(tmp_path: Path, row: str, field: str | None, words: list[str]) -> None:
    data = write_text(tmp_path / "bank.csv", CSV_HEADER + "单选,题,甲,乙,丙,丁,A,章\n" + row + "\n")
    mapping = write_text(tmp_path / "m.toml", CSV_MAPPING)
    problem = single_problem(data, mapping=mapping)
    assert_names(problem, data, 3, field, *words)
    if field is not None:
        assert problem.record == "bank/3"


@pytest.mark.parametrize(
    ("record", "field", "words"),
    [
        ({"q": "题", "a": "A"}, "o", ["needs options"]),
        ({"q": "题", "o": ["x", "y"]}, "a", ["empty answer"]),
        ({"q": "题", "o": '["x", "y"', "a": "A"}, "o", ["not a JSON list"]),
        ({"q": "题", "o": ["x", "y"], "a": {"k": 1}}, "a", ["text or a list"]),
        ({"q": ["题"], "o": ["x", "y"], "a": "A"}, "q", ["expected text for stem"]),
        ({"q": "题", "o": 5, "a": "A"}, "o", ["text or a list"]),
        ({"o": ["x", "y"], "a": "A"}, "q", ["empty stem"]),
    ],
)
def test_bad_jsonl_record(tmp_path: Path, record: dict[str, Any], field: str, words: list[str]) -> None:
    data = write_jsonl(tmp_path / "bank.jsonl", [{"q": "好题", "o": ["x", "y"], "a": "B"}, record])
    mapping = write_text(
        tmp_path / "m.toml",
        'type = { value = "单选" }\nstem = "q"\noptions = { column = "o", json = true }\nanswer = "a"\n'
        'subject = { value = "数学" }\nlevel1 = { value = "代数" }\n',
    )
    assert_names(single_problem(data, mapping=mapping), data, 2, field, *words)


def test_column_missing_from_the_header(tmp_path: Path) -> None:
    data = write_text(tmp_path / "bank.csv", "type,stem,A,B,C,D,answer\n单选,题,甲,乙,丙,丁,A\n")
    mapping = write_text(tmp_path / "m.toml", CSV_MAPPING)
    assert_names(single_problem(data, mapping=mapping), data, 1, "unit", "no such column", "'level1'")


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        ('stem = "q"\nanswer = \n', 2, None, ["not valid TOML"]),
        (CSV_MAPPING + 'colour = "c"\n', None, "colour", ["unknown key"]),
        ('stem = "q"\n', None, "type", ["required"]),
        (CSV_MAPPING.replace('"type"', '{ value = "问答" }', 1), None, "type", ["unknown question type"]),
        (CSV_MAPPING + 'stage = { value = "大学" }\n', None, "stage", ["unknown school stage"]),
        (CSV_MAPPING + 'language = { value = "fr" }\n', None, "language", ["zh or en"]),
        (CSV_MAPPING.replace('"answer"', '{ value = "A" }'), None, "answer", ["name its column"]),
        (CSV_MAPPING.replace('["A", "B", "C", "D"]', "3"), None, "options", ["list of columns"]),
        (CSV_MAPPING.replace('level1 = "unit"', "level1 = 7"), None, "level1", ["column name"]),
        (CSV_MAPPING + "extra = 3\n", None, "extra", ["list of column names"]),
    ],
)
def test_bad_mapping_file(tmp_path: Path, text: str, line: int | None, field: str | None, words: list[str]) -> None:
    data = write_text(tmp_path / "bank.csv", CSV_HEADER + "单选,题,甲,乙,丙,丁,A,章\n")
    mapping = write_text(tmp_path / "m.toml", text)
    assert_names(single_problem(data, mapping=mapping), mapping, line, field, *words)


def test_mapped_format_without_a_mapping(tmp_path: Path) -> None:
    """A bad setting, not a bad record: it stops the import even with skip_invalid, naming the setting."""
    data = write_text(tmp_path / "bank.csv", CSV_HEADER)
    for skip_invalid in (False, True):
        with pytest.raises(SettingError) as refused:
            load_questions(data, "mapped", skip_invalid=skip_invalid)
        assert refused.value.setting == "mapping" and "needs a mapping file" in str(refused.value)
        assert str(data) in str(refused.value) and "--" not in str(refused.value)


def test_file_of_unknown_kind(tmp_path: Path) -> None:
    data = write_text(tmp_path / "bank.xlsx", "")
    mapping = write_text(tmp_path / "m.toml", CSV_MAPPING)
    assert "cannot tell JSONL from CSV" in str(single_problem(data, mapping=mapping))


@pytest.mark.parametrize(
    ("options", "texts"),
    [
        (["0.5", "1.5", "2.5", "3.5"], ["0.5", "1.5", "2.5", "3.5"]),  # read as labels 0, 1, 2, 3 (#27 item 5)
        ([0.5, 1.5, 2, 3], ["0.5", "1.5", "2", "3"]),
        (["1.5 m", "2.5 m", "3 m", "4 m"], ["1.5 m", "2.5 m", "3 m", "4 m"]),
        (["A. 0.5", "B. 1.5", "C. 2.5", "D. 3.5"], ["0.5", "1.5", "2.5", "3.5"]),  # labelled: labels stripped
    ],
)
def test_decimal_options_are_values_not_labels(tmp_path: Path, options: list[Any], texts: list[str]) -> None:
    # The shape of MMLU-Pro's rows: the options a list in one field, the answer a letter.
    data = write_jsonl(tmp_path / "bank.jsonl", [{"q": "What is 3/2?", "o": options, "a": "B"}])
    mapping = write_text(
        tmp_path / "m.toml",
        'type = { value = "single_choice" }\nstem = "q"\noptions = "o"\nanswer = "a"\n'
        'subject = { value = "math" }\nlevel1 = { value = "arithmetic" }\n',
    )
    (question,) = load_questions(data, mapping=mapping).questions
    assert [o.label for o in question.options] == ["A", "B", "C", "D"]
    assert [o.text for o in question.options] == texts and question.answer == ["B"]


@pytest.mark.parametrize(
    ("row", "answer"),
    [
        ("单选,题,甲,乙,丙,丁,Ｂ,章", ["B"]),  # typed on a Chinese keyboard: full-width letters
        ("多选,题,甲,乙,丙,丁,Ｃ、Ａ,章", ["A", "C"]),
        ("多选,题,甲,乙,丙,丁,ａｄ,章", ["A", "D"]),
        ("判断,题,甲,乙,,,Ｔ，Ｆ,章", [True, False]),
    ],
)
def test_full_width_answers_are_their_letters(tmp_path: Path, row: str, answer: list[Any]) -> None:
    data = write_text(tmp_path / "bank.csv", CSV_HEADER + row + "\n")
    (question,) = load_questions(data, mapping=write_text(tmp_path / "m.toml", CSV_MAPPING)).questions
    assert question.answer == answer


def test_a_json_list_of_options_in_a_text_column_is_read_as_the_list(tmp_path: Path) -> None:
    """Without ``json = true`` the cell was one option, ``["介质", ...]``, and the answer A was right by default."""
    row = '单选,声音的传播需要,"[""介质"", ""真空"", ""光"", ""电""]",B,章\n'
    data = write_text(tmp_path / "bank.csv", "type,stem,choices,answer,unit\n" + row)
    for options in ('"choices"', '{ column = "choices", separator = "," }'):
        mapping = write_text(tmp_path / "m.toml", CSV_MAPPING.replace('["A", "B", "C", "D"]', options))
        (question,) = load_questions(data, mapping=mapping).questions
        assert [o.text for o in question.options] == ["介质", "真空", "光", "电"] and question.answer == ["B"]


@pytest.mark.parametrize(
    ("header", "row", "options", "field"),
    [
        ("type,stem,opts,answer,unit", "单选,哪个是偶数,1｜2｜3,A,章", '{ column = "opts", separator = "|" }', "opts"),
        ("type,stem,opts,answer,unit", "多选,哪些是偶数,2;4;5,A,章", '"opts"', "opts"),
        (CSV_HEADER.strip(), "单选,题,甲,,,,A,章", '["A", "B", "C", "D"]', "A, B, C, D"),
    ],
)
def test_a_choice_question_with_one_option_is_refused(
    tmp_path: Path, header: str, row: str, options: str, field: str
) -> None:
    """One option means the options were misread (another separator); graded as it stands, A would always be right."""
    data = write_text(tmp_path / "bank.csv", f"{header}\n{row}\n")
    mapping = write_text(tmp_path / "m.toml", CSV_MAPPING.replace('["A", "B", "C", "D"]', options))
    assert_names(single_problem(data, mapping=mapping), data, 2, field, "only one option")


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_gbk_file_is_named_as_gbk(tmp_path: Path, suffix: str) -> None:
    """Excel on a Chinese Windows saves CSV in GBK: the error says so and how to convert it."""
    text = CSV_HEADER.replace("unit", "章节") + "单选,题,甲,乙,丙,丁,A,第一章\n"
    if suffix == ".jsonl":
        text = '{"type": "单选", "stem": "题", "o": ["甲", "乙"], "answer": "A", "章节": "第一章"}\n'
    data = tmp_path / f"bank{suffix}"
    data.write_bytes(text.encode("gbk"))
    mapping = write_text(tmp_path / "m.toml", CSV_MAPPING.replace('"unit"', '"章节"'))
    problem = single_problem(data, mapping=mapping)
    assert problem.line == 1 and "not UTF-8" in str(problem) and "GBK" in str(problem) and "iconv" in str(problem)


def test_a_utf16_file_is_named_as_utf16(tmp_path: Path) -> None:
    """Excel's "Unicode Text" is UTF-16 with a BOM: the error says so, not only which byte."""
    data = tmp_path / "bank.tsv"
    data.write_bytes((CSV_HEADER + "单选,题,甲,乙,丙,丁,A,第一章\n").replace(",", "\t").encode("utf-16"))
    problem = single_problem(data, mapping=write_text(tmp_path / "m.toml", CSV_MAPPING))
    assert problem.line == 1 and "UTF-16" in str(problem) and "CSV UTF-8" in str(problem)


def test_a_key_no_jsonl_record_has_is_refused_as_a_csv_column_is(tmp_path: Path) -> None:
    """A misspelt optional key ("解释" for "解析") left every question without its analysis, silently."""
    records = [{"q": "题一", "o": ["甲", "乙"], "a": "A", "解析": "因为"}, {"q": "题二", "o": ["甲", "乙"], "a": "B"}]
    data = write_jsonl(tmp_path / "bank.jsonl", records)
    text = (
        'type = { value = "单选" }\nstem = "q"\noptions = "o"\nanswer = "a"\nsubject = { value = "数学" }\n'
        'level1 = { value = "代数" }\nanalysis = "ANALYSIS"\n'
    )
    problem = single_problem(data, mapping=write_text(tmp_path / "m.toml", text.replace("ANALYSIS", "解释")))
    assert_names(problem, data, None, "解释", "no record has this key", "'analysis'", "解析")
    questions = load(data, write_text(tmp_path / "m.toml", text.replace("ANALYSIS", "解析")))
    assert [q.analysis for q in questions.values()] == ["因为", ""]  # one record without it: that field empty


def test_a_key_one_file_of_the_bank_lacks_is_not_refused(tmp_path: Path) -> None:
    """A folder of one file per type: 填空.jsonl has no options, 单选.jsonl has; the fill-ins were refused whole."""
    bank = tmp_path / "bank"
    write_jsonl(bank / "单选.jsonl", [{"t": "单选", "q": "1+1=", "o": ["1", "2"], "a": "B"}])
    write_jsonl(bank / "填空.jsonl", [{"t": "填空", "q": "1+2=", "a": "3"}])
    text = 'type = "t"\nstem = "q"\noptions = "OPTIONS"\nanswer = "a"\nsubject = { value = "数学" }\nlevel1 = "t"\n'
    questions = load_questions(bank, mapping=write_text(tmp_path / "m.toml", text.replace("OPTIONS", "o")))
    assert sorted((q.stem, q.answer[0]) for q in questions.questions) == [("1+1=", "B"), ("1+2=", "3")]
    misspelt = single_problem(bank, mapping=write_text(tmp_path / "m.toml", text.replace("OPTIONS", "选项")))
    assert_names(misspelt, bank, None, "选项", "no record of its 2 JSONL files has this key", "'options'")


def test_a_column_the_mapping_reads_named_twice_is_refused(tmp_path: Path) -> None:
    """Two 答案 columns: the row gave the last cell, silently, where the first may be the key meant."""
    data = write_text(tmp_path / "bank.csv", "type,stem,A,B,C,D,answer,unit,answer\n单选,题,甲,乙,丙,丁,A,章,B\n")
    problem = single_problem(data, mapping=write_text(tmp_path / "m.toml", CSV_MAPPING))
    assert_names(problem, data, 1, "answer", "twice", "columns 7 and 9")


@pytest.mark.parametrize(
    ("options", "single"),
    [
        (["Ａ．塑料尺", "Ｂ．铜钥匙", "Ｃ．橡皮"], True),
        (["Ａ、塑料尺", "Ｂ、铜钥匙", "Ｃ、橡皮"], False),
        ({"Ａ": "塑料尺", "Ｂ": "铜钥匙", "Ｃ": "橡皮"}, True),
        ({"A.": "塑料尺", "B.": "铜钥匙", "C.": "橡皮"}, True),
    ],
)
def test_full_width_option_labels_are_read_as_labels(tmp_path: Path, options: Any, single: bool) -> None:
    """``Ａ．塑料尺`` is option A with the text 塑料尺: in one list column, one column per option, or an object."""
    record: dict[str, Any] = {"q": "下列物体中属于导体的是", "a": "Ｂ"}
    record.update({"o": options} if single else dict(zip("ABC", options, strict=True)))
    data = write_jsonl(tmp_path / "bank.jsonl", [record])
    columns = '"o"' if single else '["A", "B", "C"]'
    mapping = write_text(
        tmp_path / "m.toml",
        f'type = {{ value = "单选" }}\nstem = "q"\noptions = {columns}\nanswer = "a"\n'
        'subject = { value = "物理" }\nlevel1 = { value = "电学" }\n',
    )
    (question,) = load_questions(data, mapping=mapping).questions
    assert [(o.label, o.text) for o in question.options] == [("A", "塑料尺"), ("B", "铜钥匙"), ("C", "橡皮")]
    assert question.answer == ["B"]


@pytest.mark.parametrize(
    ("written", "qtype"),
    [
        ("单项选择题", QuestionType.SINGLE),
        ("多项选择题", QuestionType.MULTIPLE),
        ("不定项选择题", QuestionType.MULTIPLE),
        ("是非题", QuestionType.JUDGMENT),
    ],
)
def test_the_exam_papers_names_of_the_types(tmp_path: Path, written: str, qtype: QuestionType) -> None:
    answer = "TF" if qtype is QuestionType.JUDGMENT else "A"
    data = write_text(tmp_path / "bank.csv", CSV_HEADER + f"{written},题,甲,乙,,,{answer},章\n")
    (question,) = load_questions(data, mapping=write_text(tmp_path / "m.toml", CSV_MAPPING)).questions
    assert question.type is qtype


def test_choice_without_single_or_multiple_is_refused_saying_so(tmp_path: Path) -> None:
    data = write_text(tmp_path / "bank.csv", CSV_HEADER + "选择题,题,甲,乙,,,A,章\n")
    problem = single_problem(data, mapping=write_text(tmp_path / "m.toml", CSV_MAPPING))
    assert_names(problem, data, 2, "type", "单选 or 多选")


@pytest.mark.parametrize(
    ("grade", "stage"),
    [
        ("七年级", Stage.MIDDLE),
        ("初二", Stage.MIDDLE),
        ("高三", Stage.HIGH),
        ("六年级", Stage.PRIMARY),
        # as textbooks and school banks write them, the term after the grade or the school before it
        ("七年级上册", Stage.MIDDLE),
        ("高一下学期", Stage.HIGH),
        ("初中二年级", Stage.MIDDLE),
        ("小学三年级", Stage.PRIMARY),
        ("高中一年级", Stage.HIGH),
        ("8年级", Stage.MIDDLE),
        ("初四", Stage.MIDDLE),
    ],
)
def test_a_grade_names_its_stage(tmp_path: Path, grade: str, stage: Stage) -> None:
    data = write_text(
        tmp_path / "bank.csv", CSV_HEADER.replace("unit", "unit,grade") + f"单选,题,甲,乙,,,A,章,{grade}\n"
    )
    mapping = write_text(tmp_path / "m.toml", CSV_MAPPING + 'stage = "grade"\n')
    (question,) = load_questions(data, mapping=mapping).questions
    assert question.stage is stage


@pytest.mark.parametrize("written", ["中学", "小学年级", "高中十年级", "高考"])
def test_a_stage_that_names_no_grade_is_refused(tmp_path: Path, written: str) -> None:
    """中学 is middle or high school; the grade's number is what says which."""
    data = write_text(
        tmp_path / "bank.csv", CSV_HEADER.replace("unit", "unit,grade") + f"单选,题,甲,乙,,,A,章,{written}\n"
    )
    problem = single_problem(data, mapping=write_text(tmp_path / "m.toml", CSV_MAPPING + 'stage = "grade"\n'))
    assert_names(problem, data, 2, "grade", "unknown school stage", "七年级上册")


def test_a_latin1_file_is_not_called_gbk(tmp_path: Path) -> None:
    """Latin-1 decodes as GBK too (naïve as na飗e): the hint is for Chinese only."""
    data = tmp_path / "bank.csv"
    data.write_bytes((CSV_HEADER + "single_choice,naïve crème?,a,b,c,d,A,unit\n").encode("latin-1"))
    problem = single_problem(data, mapping=write_text(tmp_path / "m.toml", CSV_MAPPING))
    assert "not UTF-8" in str(problem) and "GBK" not in str(problem)


@pytest.mark.parametrize(
    ("name", "separator", "hint"), [("bank.csv", "\t", "name it .tsv"), ("bank.tsv", ",", "name it .csv")]
)
def test_a_file_of_the_other_separator_says_so(tmp_path: Path, name: str, separator: str, hint: str) -> None:
    """A tab-separated ``.csv`` (Excel's "Text (Tab delimited)") has a one-cell header: the error says why."""
    text = (CSV_HEADER + "单选,题,甲,乙,,,A,章\n").replace(",", separator)
    problem = single_problem(write_text(tmp_path / name, text), mapping=write_text(tmp_path / "m.toml", CSV_MAPPING))
    assert "no such column" in str(problem) and hint in str(problem)
