"""The papers' tables and analyses on hand-countable runs (see tests/_runs.py and test_aggregate.py)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.errors import InputError
from kg.graph import KnowledgeGraph
from reports import analyses, tables
from reports.aggregate import question_frame
from reports.markdown import markdown
from reports.runs import graph_of, load_runs
from reports.writer import build_tables
from runners.counting import JudgmentRule
from tests._runs import SMALL_ANSWERS, Answer, question, small_bank, write_bank, write_run, write_scores


def _frame(run_dirs: list[Path], judgment: JudgmentRule = "per-statement") -> tuple[pd.DataFrame, KnowledgeGraph]:
    runs, _ = load_runs(run_dirs)
    graph = graph_of(runs)
    return question_frame(runs, graph, judgment), graph


def _cell(table: pd.DataFrame, qtype: str, column: str, variant: str = "original", mode: str = "zero-shot") -> str:
    rows = table[(table["type"] == qtype) & (table["variant"] == variant) & (table["mode"] == mode)]
    assert len(rows) == 1, (qtype, variant, mode, len(rows))
    return str(rows.iloc[0][column])


def test_type_by_mode_in_the_papers_orientation(tmp_path: Path) -> None:
    """Rows type x variant x mode, two columns per model, arts and science, as the paper's Table 1 (#31 item 6)."""
    bank = small_bank()
    shuffled = {"q1": Answer(False), "q2": Answer(False), "q6": Answer(True)}
    frame, _ = _frame(
        [
            write_run(tmp_path / "s", bank, shuffled, variant="shuffled"),
            write_run(tmp_path / "a", bank, SMALL_ANSWERS),
            write_run(tmp_path / "o", bank, {"q1": Answer(True)}, model="other"),
        ],
        "per-item",
    )
    table = tables.type_by_mode(frame)
    assert table.attrs["caption"].startswith(tables.type_by_mode_caption("per-item"))
    with pytest.raises(ValueError, match="counted under per-item, not per-statement"):
        tables.type_by_mode(frame, "per-statement")  # a caption never names a rule the numbers did not follow
    assert list(table.columns) == [
        "type", "variant", "mode", "tiny-model · arts", "tiny-model · science", "other · arts", "other · science",
        "average · arts", "average · science",
    ]  # fmt: skip
    # The paper's Average: the models' accuracies, unweighted; a model not asked is left out, not a zero.
    assert _cell(table, "single_choice", "average · science") == "83.3"  # (66.7 + 100) / 2
    assert _cell(table, "single_choice", "average · arts") == "100.0"  # other was asked no arts question
    # single choice: arts q6 1/1; science q1 q2 q4 2/3
    assert _cell(table, "single_choice", "tiny-model · arts") == "100.0"
    assert _cell(table, "single_choice", "tiny-model · science") == "66.7"
    assert _cell(table, "judgment", "tiny-model · science") == "100.0"
    assert _cell(table, "multiple_choice", "tiny-model · science") == "0.0"  # q5 unparsed counts as wrong
    assert _cell(table, "multiple_choice", "tiny-model · arts") == "—"  # none asked
    assert _cell(table, "fill_in_blank", "tiny-model · arts") == "0.0"
    assert (_cell(table, "overall", "tiny-model · arts"), _cell(table, "overall", "tiny-model · science")) == (
        "50.0",
        "60.0",
    )
    assert _cell(table, "single_choice", "other · science") == "100.0"
    assert _cell(table, "single_choice", "other · arts") == "—"
    assert "cloze" not in set(table["type"])  # skipped, never scored
    # The paper's row order: Single, Single* (shuffled) ..., then overall, then how many were asked.
    assert table["type"].tolist()[:2] == ["single_choice", "single_choice"]
    assert table["variant"].tolist()[:2] == ["original", "shuffled"]
    assert _cell(table, "single_choice", "tiny-model · science", variant="shuffled") == "0.0"
    assert table["type"].tolist()[-2:] == [tables.ASKED_ROW, tables.ASKED_ROW]
    # The paper's types in its order (the release's README shows its Table 1): Single, Multi, Filling, Judging.
    assert list(dict.fromkeys(table["type"]))[:4] == ["single_choice", "multiple_choice", "fill_in_blank", "judgment"]
    # asked / in bank without the bank: the questions with a record (q8 skipped is not asked).
    assert _cell(table, tables.ASKED_ROW, "tiny-model · arts") == "2 / 3"
    assert _cell(table, tables.ASKED_ROW, "tiny-model · science") == "5 / 5"
    assert _cell(table, tables.ASKED_ROW, "other · arts") == "0 / 0"
    assert _cell(table, tables.ASKED_ROW, "average · arts") == "—"
    from reports.writer import column_title

    assert column_title("average · science") == ("平均 理科", "average · science")
    assert column_title("tiny-model · asked / in bank") == (
        "tiny-model 作答题数 / 题库题数",
        "tiny-model · asked / in bank",
    )


def test_type_by_mode_orders_the_modes_as_the_paper(tmp_path: Path) -> None:
    """Table 1's modes within a type: zero-shot, few-shot, zero-shot-CoT, few-shot-CoT (#31 item 4)."""
    bank = small_bank()
    modes = ["few-shot-cot", "zero-shot-cot", "few-shot", "zero-shot"]
    frame, _ = _frame([write_run(tmp_path / m, bank, {"q1": Answer(True)}, mode=m) for m in modes])
    table = tables.type_by_mode(frame)
    single = table[(table["type"] == "single_choice") & (table["variant"] == "original")]
    assert single["mode"].tolist() == ["zero-shot", "few-shot", "zero-shot-cot", "few-shot-cot"]
    assert sorted(tables.TABLE1_TYPES) == sorted(tables.TYPE_ORDER)  # every type has its row


def test_cot_step_scores_reads_aliases_and_adds_the_papers_direction(tmp_path: Path) -> None:
    bank = small_bank()
    run = write_run(tmp_path / "cot", bank, {"q1": Answer(True), "q2": Answer(False)}, mode="few-shot-cot")
    write_scores(
        run,
        [
            {"question_id": "q1", "scores": {"faithfulness": 0.9, "source_consistency": 0.8, "redundancy": 0.5}},
            {"question_id": "q2", "scores": {"faithfulness": 0.7, "source_consistency": 0.6, "redundancy": None}},
        ],
    )
    table = tables.cot_step_scores(_frame([run])[0])
    row = table.iloc[0]
    assert (row["Acc"], row["Faithfulness-Step"], row["Source-Consistency"]) == ("50.0", "80.0", "70.0")
    assert row["Redundancy"] == "50.0 (n=1)"  # q2 has none: the mean of 1 chain, not of the row's n = 2
    assert row["Reasoning Alignment"] == "—"
    assert row["Max contradiction (paper, lower is better)"] == "30.0"


def test_cot_step_scores_empty_without_scores(tmp_path: Path) -> None:
    frame, _ = _frame([write_run(tmp_path / "a", small_bank(), SMALL_ANSWERS)])
    assert tables.cot_step_scores(frame).empty


@pytest.mark.slow
def test_cot_step_scores_empty_when_no_chain_has_a_value_and_the_report_builds(tmp_path: Path) -> None:
    """Every chain too long to score (#28 item 3): scores recorded, all null; before, a KeyError in report."""
    bank = small_bank()
    run = write_run(tmp_path / "cot", bank, {"q1": Answer(True), "q2": Answer(False)}, mode="few-shot-cot")
    why = "not scored (too long: 5,001 steps, over the 2,000 of a chain)"
    write_scores(run, [{"question_id": q, "scores": {"faithfulness": None, "redundancy": None},
                        "unavailable": {"faithfulness": why, "redundancy": why}} for q in ("q1", "q2")])  # fmt: skip
    assert tables.cot_step_scores(_frame([run])[0]).empty
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "report"), "--no-plots"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "report" / "index.html").is_file()


def test_level1_table_and_categories(tmp_path: Path) -> None:
    bank = small_bank()
    frame, _ = _frame(
        [
            write_run(tmp_path / "a", bank, SMALL_ANSWERS),
            write_run(tmp_path / "b", bank, {"q1": Answer(False), "q5": Answer(True)}, model="other"),
        ]
    )
    assert tables.default_subject_stage(frame) == ("数学", "middle")  # no physics: the biggest subject
    table = tables.level1_accuracy(frame, "数学", "middle").set_index("level1")
    assert table.index.tolist() == ["几何", "函数"]
    # The caption names the subject and stage the rows are of (the default choice is not shown otherwise).
    assert table.attrs["caption"] == "Level-1 points of 数学, middle school (初中)."
    assert table.attrs["caption_zh"] == "初中数学的一级知识点。"
    assert table.loc["函数", "a"] == "80.0"  # q1 q2 q3 q4, q3's two statements each counted: 4 of 5
    assert table.loc["函数", "a · asked / in bank"] == "4 / 4"
    assert table.loc["几何", "b"] == "100.0"
    assert (table.loc["函数", "b"], table.loc["函数", "b · asked / in bank"]) == ("0.0", "1 / 1")
    categories = tables.category_scores(frame).set_index("run")
    # run a: 语文 1/2 (arts); 数学 4/6 (science: q3's two statements count, as in every table); average of
    # subjects = (0.5 + 0.667) / 2
    assert (categories.loc["a", "arts"], categories.loc["a", "science"]) == ("50.0", "66.7")
    assert categories.loc["a", "average (macro over subjects)"] == "58.3"
    assert categories.loc["b", "arts"] == "—"
    # q8 (cloze) is skipped, so run a was asked 7 of its 8 questions; run b 2 of its 2 (no bank: those recorded).
    assert (categories.loc["a", "asked / in bank"], categories.loc["b", "asked / in bank"]) == ("7 / 8", "2 / 2")


def test_ranking_table(tmp_path: Path) -> None:
    bank = small_bank()
    answers = {
        "q1": Answer(True, gold_rank=1, option_scores={c: 0.0 for c in "ABCD"}),
        "q2": Answer(False, gold_rank=4, option_scores={c: 0.0 for c in "ABCD"}),
    }
    frame, _ = _frame([write_run(tmp_path / "r", bank, answers, strategy="rank-options")])
    row = tables.ranking(frame).iloc[0]
    assert (row["MRR"], row["Hit@1"], row["Hit@4"], row["mean rank"]) == ("0.625", "50.0", "100.0", "2.50")
    assert row["mean rank / options"] == "0.625"


def test_ranking_table_has_xiezhis_random_guess_average_and_variance_rows(tmp_path: Path) -> None:
    # #26 item 7: Xiezhi's tables carry a Random-Guess row and the average and variance across models.
    bank = small_bank()
    scores = {c: 0.0 for c in "ABCD"}
    first = {
        "q1": Answer(True, gold_rank=1, option_scores=scores),
        "q2": Answer(False, gold_rank=4, option_scores=scores),
    }
    second = {
        "q1": Answer(False, gold_rank=2, option_scores=scores),
        "q2": Answer(False, gold_rank=2, option_scores=scores),
    }
    runs = [
        write_run(tmp_path / "a", bank, first, strategy="rank-options"),
        write_run(tmp_path / "b", bank, second, strategy="rank-options", model="other"),
    ]
    frame, _ = _frame(runs)
    table = tables.ranking(frame).set_index("run")
    # Four options ranked at random: MRR (1 + 1/2 + 1/3 + 1/4) / 4 = 0.521, Hit@1 1/4, Hit@4 all, mean rank 2.5.
    guess = table.loc["Random-Guess"]
    assert (guess["MRR"], guess["Hit@1"], guess["Hit@4"], guess["mean rank"]) == ("0.521", "25.0", "100.0", "2.50")
    assert guess["mean rank / options"] == "0.625" and guess["n"] == 2
    # MRR 0.625 and 0.5; Hit@1 50 % and 0 %.
    average, variance = table.loc["Performance-Average"], table.loc["Performance-Variance"]
    assert (average["MRR"], average["Hit@1"], average["mean rank"]) == ("0.562", "25.0", "2.25")
    # #31 item 4: the row the paper labels Performance-Variance holds the population standard deviation (its
    # Table 1's 0.062-0.104 are SDs of the models' MRRs): |0.625 - 0.5| / 2 = 0.0625, not its square 0.0039;
    # Hit@1 50 % and 0 %: 25 points, not 625.
    assert (variance["MRR"], variance["Hit@1"]) == ("0.062", "25.0")
    # The page says what the row holds, in both languages (#31 item 4).
    assert "standard deviation" in table.attrs["caption"] and "标准差" in table.attrs["caption_zh"]
    assert "caption" not in tables.ranking(_frame(runs[:1])[0]).attrs  # one run: no spread row, no caption
    # Runs of another setting (more options) get their own Random-Guess, never mixed with this one's.
    wide = {c: 0.0 for c in "ABCDEFGH"}
    more = {"q1": Answer(True, gold_rank=1, option_scores=wide), "q2": Answer(False, gold_rank=8, option_scores=wide)}
    runs.append(write_run(tmp_path / "c", bank, more, strategy="rank-options", variant="options-8"))
    frame, _ = _frame(runs)
    table = tables.ranking(frame).set_index("run")
    assert table.loc["Random-Guess · original", "Hit@1"] == "25.0"
    assert table.loc["Random-Guess · options-8", "Hit@1"] == "12.5"
    assert "Performance-Average · options-8" not in table.index  # one run of that setting


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("下列说法不正确的是", True),
        ("下列不属于哺乳动物的是", True),
        ("没有错误的一项是", True),
        ("Which of the following is NOT true?", True),
        ("All of the following EXCEPT", True),
        ("解不等式 2x > 4", False),
        ("下列说法正确的是", False),
        ("nothing here is knotted", False),
        # Words with 不 that negate nothing asked, 错误, and negations inside quotations or the material (#26 item 6).
        ("下列句子中，意思不同的一句是", False),
        ("14/42的分子减少7，要使这个分数的大小不变，分母应该减少", False),
        ("“天时不如地利，地利不如人和”出自", False),
        ("张家口不但互市之要区，实亦西北之屏藩。由此推断，京张铁路的修筑", False),
        ("下列有关细胞核的叙述，错误的是", False),
        ("孟子说：“不以规矩，不成方圆”，这里“规矩”的意思是", False),
        ("若(x+t)(x+1)的积中不含有x的一次项，则t为", False),
        ("下列关于李贽思想的表述，不正确的是", True),
        ("下列句子没有语病的一项是", True),
        ("亚洲与非洲分界线不包括", True),
    ],
)
def test_negation_words(text: str, expected: bool) -> None:
    assert analyses.has_negation(text) is expected


@pytest.mark.parametrize(
    ("stem", "options", "expected"),
    [
        ("①水 ②冰 ③汽 中属于液体的是", ["①", "②③"], True),
        ("(1) 甲 (2) 乙 哪些正确", ["(1)", "(2)"], True),
        ("Read: (a) cats (b) dogs", ["a", "b"], True),
        ("下列说法正确的是", ["一", "二"], False),
        ("e.g. see fig. 1", ["x", "y"], False),
    ],
)
def test_sub_options(stem: str, options: list[str], expected: bool) -> None:
    assert analyses.has_sub_options(question("x", "数学", "a", "b", stem=stem, options=options)) is expected


def test_negation_split(tmp_path: Path) -> None:
    qs = [
        question("n1", "生物", "细胞", "结构", stem="下列不属于细胞器的是"),
        question("n2", "生物", "细胞", "结构", stem="下列说法不正确的是"),
        question("p1", "生物", "细胞", "结构", stem="下列属于细胞器的是"),
    ]
    bank = {q.id: q for q in qs}
    root = write_bank(tmp_path / "bank", qs)
    answers = {"n1": Answer(False), "n2": Answer(True), "p1": Answer(True)}
    frame, graph = _frame([write_run(tmp_path / "r", bank, answers, bank=root)])
    row = analyses.split_accuracy(frame, graph, "negation").iloc[0]
    assert (row["n_with"], row["acc_with"], row["n_without"], row["acc_without"]) == (2, 0.5, 1, 1.0)
    assert row["difference"] == pytest.approx(-0.5)
    assert row["share_with"] == pytest.approx(2 / 3)


def test_variant_and_cot_pairs(tmp_path: Path) -> None:
    bank = small_bank()
    plain = {"q1": Answer(True), "q2": Answer(False), "q4": Answer(True), "q6": Answer(False)}
    shuffled = {"q1": Answer(False), "q2": Answer(False), "q4": Answer(True)}  # q6 unpaired
    cot = {"q1": Answer(True), "q2": Answer(True), "q4": Answer(True), "q6": Answer(True)}
    frame, _ = _frame(
        [
            write_run(tmp_path / "plain", bank, plain),
            write_run(tmp_path / "shuf", bank, shuffled, variant="shuffled"),
            write_run(tmp_path / "cot", bank, cot, mode="zero-shot-cot"),
        ]
    )
    variants = analyses.variant_pairs(frame).iloc[0]
    assert (variants["run_a"], variants["run_b"], variants["variant"]) == ("plain", "shuf", "shuffled")
    assert (variants["n_pairs"], variants["both_right"], variants["only_a_right"], variants["only_b_right"]) == (
        3,
        1,
        1,
        0,
    )
    assert variants["difference"] == pytest.approx(1 / 3 - 2 / 3)
    assert variants["mcnemar_p"] == pytest.approx(1.0)
    cots = analyses.cot_pairs(frame).iloc[0]
    assert (cots["without"], cots["with"], cots["n_pairs"], cots["only_b_right"]) == (
        "zero-shot",
        "zero-shot-cot",
        4,
        2,
    )
    assert cots["mcnemar_p"] == pytest.approx(0.5)  # 0 vs 2: 2 * (1/2)^2


def test_markdown_escapes_cells() -> None:
    table = pd.DataFrame({"a|b": ["x|y", "line\nbreak"], "n": [1, None]})
    text = markdown(table, title="T")
    assert "| a\\|b | n |" in text
    assert "| x\\|y | 1.0 |" in text
    assert "| line break |  |" in text


def _judgment_frame() -> pd.DataFrame:
    # Three judgment items of science: one single statement right, one 3-statement item with 2 right,
    # one 2-statement item all right (#16 item 4), counted per statement (units) as question_frame does.
    rows = [
        {"correct": 1.0, "partial": 1.0, "statements": 1, "units": 1, "units_right": 1},
        {"correct": 0.0, "partial": 2 / 3, "statements": 3, "units": 3, "units_right": 2},
        {"correct": 1.0, "partial": 1.0, "statements": 2, "units": 2, "units_right": 2},
    ]
    common = {"scored": True, "variant": "original", "model": "m", "mode": "zero-shot", "type": "judgment"}
    return pd.DataFrame([{**common, "group": "science", **row} for row in rows])


def test_judgment_counts_its_units_and_the_caption_names_the_rule() -> None:
    frame = _judgment_frame()
    per_statement = tables.type_by_mode(frame)
    assert _cell(per_statement, "judgment", "m · science") == "83.3"  # 5 of 6 statements
    per_item = tables.type_by_mode(frame.assign(units=1, units_right=frame["correct"]), judgment="per-item")
    assert _cell(per_item, "judgment", "m · science") == "66.7"  # 2 of 3 items wholly right
    assert "per item" in tables.type_by_mode_caption("per-item")
    assert "per statement" in tables.type_by_mode_caption("per-statement")
    assert "released scorer" in tables.type_by_mode_caption("ck12-release")
    assert per_statement.attrs["caption"].startswith(tables.type_by_mode_caption("per-statement"))
    with pytest.raises(InputError, match="per-item"):
        tables.type_by_mode(frame, judgment="per-blank")  # type: ignore[arg-type]


def test_statement_rows_spread_each_question_into_its_units() -> None:
    from reports.aggregate import statement_rows

    frame = _judgment_frame().assign(question_id=["a", "b", "c"])
    rows = statement_rows(frame)
    assert list(rows["question_id"]) == ["a", "b", "b", "b", "c", "c"]
    assert list(rows["correct"]) == [1.0, 1.0, 1.0, 0.0, 1.0, 1.0]  # 5 of 6 statements
    assert list(rows["lead"]) == [True, True, False, False, True, False]  # each question still counted once
    assert _cell(tables.type_by_mode(rows), "overall", "m · science") == "83.3"
    # A question the released scorer counts nothing for (no verdict found) stays one row, asked, not scored.
    none = statement_rows(frame.assign(units=[1, 0, 2], units_right=[0, 0, 1], asked=True))
    assert list(none["question_id"]) == ["a", "b", "c", "c"] and list(none["scored"]) == [True, False, True, True]
    assert list(none["correct"].fillna(-1)) == [0.0, -1, 1.0, 0.0]  # one unit: right as the rule counts it


def test_the_question_frame_counts_judgment_statements(tmp_path: Path) -> None:
    frame, graph = _frame([write_run(tmp_path / "a", small_bank(), SMALL_ANSWERS)])
    judgments = frame[frame["type"] == "judgment"]
    expected = [len(graph.questions[q].answer) for q in judgments["question_id"]]
    assert list(judgments["statements"]) == expected


def test_a_subject_counts_in_each_of_its_categories() -> None:
    # CMMLU: 中国历史 is Humanities and China specific; 小学数学 STEM only (#16 item 2).
    common = {"scored": True, "run": "r", "model": "m", "mode": "zero-shot"}
    rows = [
        {"subject": "中国历史", "group": "Humanities", "groups": ("Humanities", "China specific"), "correct": 1.0},
        {"subject": "中国历史", "group": "Humanities", "groups": ("Humanities", "China specific"), "correct": 0.0},
        {"subject": "世界历史", "group": "Humanities", "groups": ("Humanities",), "correct": 1.0},
        {"subject": "小学数学", "group": "STEM", "groups": ("STEM",), "correct": 0.0},
    ]
    row = tables.category_scores(pd.DataFrame([{**common, **r} for r in rows])).iloc[0]
    assert row["China specific"] == "50.0"  # 中国历史 alone
    assert row["Humanities"] == "75.0"  # (0.5 + 1.0) / 2 subjects
    assert row["STEM"] == "0.0"
    assert row["average (macro over subjects)"] == "50.0"  # three subjects, each once


def test_difficulty_distribution_counts_the_runs_right_on_each_question(tmp_path: Path) -> None:
    """CMMLU's difficulty distribution (#26 item 7): of the questions all runs scored, how many 0..N got right."""
    bank = small_bank()
    a = {"q1": Answer(True), "q2": Answer(True), "q4": Answer(False), "q6": Answer(True)}
    b = {"q1": Answer(True), "q2": Answer(False), "q4": Answer(False), "q6": Answer(True)}
    c = {"q1": Answer(True), "q2": Answer(False), "q4": Answer(False)}  # q6 unanswered: left out
    runs = [
        write_run(tmp_path / name, bank, answers, model=name) for name, answers in zip("abc", (a, b, c), strict=True)
    ]
    frame, _ = _frame(runs)
    table = analyses.difficulty_distribution(frame)
    assert list(table["runs_right"]) == [0, 1, 2, 3]
    assert list(table["questions"]) == [1, 1, 0, 1]  # q4 by none, q2 by one, q1 by all three
    assert table["share"].iloc[3] == pytest.approx(1 / 3) and table["runs"].iloc[0] == 3
    assert analyses.difficulty_distribution(_frame(runs[:1])[0]).empty  # one run says nothing of difficulty


def test_error_types_table_sorts_the_wrong_answers(tmp_path: Path) -> None:
    """CK12's error taxonomy as a report table (#26 item 7), read from the answers' text for older records."""
    bank = small_bank()
    answers = {
        "q1": Answer(True),
        "q2": Answer(False, extracted=["B"], output="正确答案是：B"),
        "q4": Answer(False, extracted=["C"], output="正确答案是：C"),
        "q5": Answer(None, status="unparsed", output="我不知道"),
        "q6": Answer(None, status="unparsed", output="火星、木星、金星、水星、" * 20),
        "q7": Answer(None, status="failed"),
    }
    frame, graph = _frame([write_run(tmp_path / "r", bank, answers)])
    table = analyses.error_types(frame).set_index("error_type")
    assert table["n"].to_dict() == {"illogical": 1, "problem_solving": 2, "gibberish": 1}
    assert set(table["wrong"]) == {4} and table.loc["problem_solving", "share"] == pytest.approx(0.5)
    tables = build_tables(frame, graph, 4, None, None)
    assert {"analysis_error_types", "analysis_difficulty"} <= set(tables)
