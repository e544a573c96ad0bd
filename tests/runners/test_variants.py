"""Variants: reproducible from a seed, the gold follows its option text, and the CK12 / Xiezhi drawing rules hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.records import Question
from runners.variants import VariantError, labels, make_variant, overlaps, parse_variant
from tests.qfactory import fill, multiple, single

MATH = [
    single((f"{i}个苹果", f"{i}个梨", f"{i}个桃", f"{i}个枣"), "ABCD"[i % 4], id=f"m{i:02d}", stem=f"数学题{i}")
    for i in range(12)
]
HISTORY = [
    single(
        (f"朝代{i}甲", f"朝代{i}乙", f"朝代{i}丙", f"朝代{i}丁"), "A", id=f"h{i:02d}", subject="历史", stem=f"历史题{i}"
    )
    for i in range(6)
]
# Options that share no character with the math golds (no 个 苹 果 梨 桃 枣 or digits).
GEOGRAPHY = [
    single(("长江", "黄河", "珠江", "淮河"), "A", id="g1", subject="地理", stem="地理题1"),
    single(("青海湖", "洞庭湖", "鄱阳湖", "太湖"), "B", id="g2", subject="地理", stem="地理题2"),
    single(("泰山", "华山", "衡山", "嵩山"), "C", id="g3", subject="地理", stem="地理题3"),
]


def _gold_texts(question: Question) -> set[str]:
    return {o.text for o in question.options if o.label in question.answer}


def test_parse_variant() -> None:
    assert parse_variant("shuffled") == ("shuffled", None)
    assert parse_variant("options-50") == ("options", 50)
    for bad in ("options-1", "options-x", "shuffle", "distractor"):
        with pytest.raises(VariantError):
            parse_variant(bad)


def test_shuffled_is_reproducible_and_the_gold_follows_its_text() -> None:
    first = make_variant(MATH, "shuffled", seed=3).questions
    again = make_variant(MATH, "shuffled", seed=3).questions
    other = make_variant(MATH, "shuffled", seed=4).questions
    assert first == again
    assert [q.options for q in first] != [q.options for q in other]
    assert any(q.options != o.options for q, o in zip(first, MATH, strict=True))
    for original, shuffled in zip(MATH, first, strict=True):
        assert shuffled.variant == "shuffled" and shuffled.id == original.id
        assert [o.label for o in shuffled.options] == ["A", "B", "C", "D"]
        assert sorted(o.text for o in shuffled.options) == sorted(o.text for o in original.options)
        assert _gold_texts(shuffled) == _gold_texts(original)
        moved = shuffled.extra["variant_from"]
        assert [original.options[ord(src) - 65].text for src in moved] == [o.text for o in shuffled.options]


def test_a_questions_variant_does_not_depend_on_the_others_selected() -> None:
    alone = make_variant(MATH[5:6], "shuffled", seed=1).questions[0]
    among = make_variant(MATH, "shuffled", seed=1).questions[5]
    assert alone == among


def test_multiple_choice_gold_is_relettered_as_a_sorted_set() -> None:
    question = multiple(("2", "3", "4", "5"), ("A", "B", "D"))
    for seed in range(5):
        shuffled = make_variant([question], "shuffled", seed=seed).questions[0]
        assert _gold_texts(shuffled) == {"2", "3", "5"}
        assert shuffled.answer == sorted(shuffled.answer)


def test_distractors_the_ck12_way() -> None:
    pool = MATH + HISTORY
    result = make_variant(MATH, "distractors", seed=0, pool=pool)
    assert len(result.questions) == len(MATH) and not result.skipped
    math_texts = {o.text for q in MATH for o in q.options}
    for original, variant in zip(MATH, result.questions, strict=True):
        assert variant.variant == "distractors"
        assert len(variant.options) == 14
        assert [o.label for o in variant.options] == list("ABCDEFGHIJKLMN")
        # the original options first (permuted), then ten from other questions of the same subject
        assert {o.text for o in variant.options[:4]} == {o.text for o in original.options}
        added = [o.text for o in variant.options[4:]]
        assert set(added) <= math_texts - {o.text for o in original.options}
        assert len(set(added)) == 10
        assert _gold_texts(variant) == _gold_texts(original)
        assert variant.extra["variant_from"][4:] == [None] * 10
    assert make_variant(MATH, "distractors", seed=0, pool=pool).questions == result.questions


def test_distractors_with_too_few_others_take_what_there_is() -> None:
    result = make_variant(MATH[:2], "distractors", seed=0)
    assert [len(q.options) for q in result.questions] == [8, 8]
    lonely = make_variant(HISTORY[:1], "distractors", seed=0)
    assert lonely.questions == [] and lonely.skipped[0][0] == "h00"


def test_options_n_the_xiezhi_way() -> None:
    pool = MATH + HISTORY + GEOGRAPHY
    result = make_variant(MATH[:3], "options-9", seed=42, pool=pool)
    assert not result.skipped
    allowed = {o.text for q in HISTORY + GEOGRAPHY for o in q.options}
    for original, variant in zip(MATH[:3], result.questions, strict=True):
        assert variant.variant == "options-9" and len(variant.options) == 9
        assert _gold_texts(variant) == _gold_texts(original)
        added = {o.text for o in variant.options} - {o.text for o in original.options}
        assert len(added) == 5 and added <= allowed  # other subjects only
        for text in added:  # no character in common with the gold
            assert not set(text) & set("".join(_gold_texts(original)))
        # "朝代" options are excluded only when they share a character with the gold: here they do not
    assert make_variant(MATH[:3], "options-9", seed=42, pool=pool).questions == result.questions


def test_options_n_skips_questions_it_cannot_fill() -> None:
    result = make_variant(MATH[:1], "options-60", seed=0, pool=MATH + GEOGRAPHY)
    assert result.questions == [] and "non-overlapping options" in result.skipped[0][1]
    smaller = make_variant([single([f"选{i}" for i in range(6)], "A")], "options-4", seed=0)
    assert "more than 4" in smaller.skipped[0][1]


def test_overlap_rules() -> None:
    assert overlaps(["北京"], "北方", "zh")
    assert not overlaps(["北京"], "上海", "zh")
    assert overlaps(["3个"], "3千克", "zh")  # digits are characters too
    assert not overlaps(["北京！"], "上海！", "zh")  # punctuation is not
    assert overlaps(["photosynthesis"], "synthetic fibre", "en")  # shares "synt", "ynth"
    assert not overlaps(["photosynthesis"], "respiration", "en")
    assert overlaps(["CO2"], "the CO2 cycle", "en")  # short gold: contained
    assert not overlaps(["CO2"], "oxygen", "en")


def test_non_choice_questions_are_skipped_and_variants_are_not_nested() -> None:
    result = make_variant([fill(["1"], id="f")], "shuffled")
    assert result.questions == [] and result.skipped == [("f", "fill_in_blank questions have no shuffled variant")]
    shuffled = make_variant(MATH[:1], "shuffled").questions
    with pytest.raises(VariantError, match="already"):
        make_variant(shuffled, "distractors")
    assert make_variant(MATH[:2], "original").questions == MATH[:2]


def test_labels_go_past_z() -> None:
    assert labels(3) == ["A", "B", "C"]
    assert labels(28)[25:] == ["Z", "AA", "AB"]
    assert len(set(labels(50))) == 50


def test_a_released_variants_own_folder_is_refused_and_its_root_runs_as_that_variant(tmp_path: Path) -> None:
    """The trimmed release's samples/shuffle_options run as a bank was scored and recorded as ``original`` (its
    questions said ``shuffled``); with --variant shuffled it was shuffled a second time."""
    import json

    from typer.testing import CliRunner

    from k12eval.cli import app
    from tests._runs import write_answers
    from tests.importer_helpers import ck12_record, write_jsonl

    root = tmp_path / "ck12"
    write_jsonl(root / "original_data" / "初中" / "数学" / "单选.jsonl", [ck12_record(id=f"q{i}") for i in range(3)])
    shuffled = [ck12_record(id=f"q{i}", answer_option=["A.2", "B.4", "C.1", "D.3"], answer="A") for i in range(3)]
    write_jsonl(root / "shuffle_options" / "初中" / "数学" / "单选.jsonl", shuffled)
    counted = CliRunner().invoke(app, ["kg", "stats", str(root / "shuffle_options")])
    assert "3 questions (ck12, shuffled) from" in counted.stdout  # what the questions are, not --variant's default
    answers = write_answers(tmp_path / "answers.jsonl", [f"q{i}" for i in range(3)], "答案：A")
    args = ["-b", "replay", "-m", "m", "-B", f"path={answers}"]
    for variant in ("original", "shuffled"):
        refused = CliRunner().invoke(app, ["run", str(root / "shuffle_options"), "--variant", variant, *args,
                                           "-o", str(tmp_path / f"refused-{variant}")])  # fmt: skip
        assert refused.exit_code != 0 and "released shuffled variant (shuffle_options)" in refused.output
        assert str(root) in refused.output and not (tmp_path / f"refused-{variant}" / "records.jsonl").exists()
    ran = CliRunner().invoke(app, ["run", str(root), "--variant", "shuffled", *args, "-o", str(tmp_path / "run")])
    assert ran.exit_code == 0, ran.output
    header = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert (header["variant"], header["data"]["variant_source"]) == ("shuffled", "released")
    records = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text("utf-8").splitlines()]
    assert [r["correct"] for r in records] == [True] * 3  # the released wording, graded against its own gold
