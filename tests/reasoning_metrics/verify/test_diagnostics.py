"""Diagnostic sets: every perturbation changes exactly what it says, where it says, reproducibly."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from kg.errors import InputError
from reasoning_metrics.diagnostics import KINDS, build_diagnostic_set, load_source, write_jsonl
from reasoning_metrics.diagnostics.edits import change_number, change_operation, negate
from reasoning_metrics.diagnostics.perturb import PERTURBATIONS, Perturbation
from reasoning_metrics.diagnostics.sources import SourceItem, analysis_steps, gsm8k_steps
from reasoning_metrics.metaeval.data import load_solutions
from tests.reasoning_metrics.verify import samples

STEPS = [
    "Tom has 12 apples.",
    "He buys 5 more, so 12 + 5 = 17.",
    "He eats 2: 17 - 2 = 15.",
    "The answer is 15.",
]
POOL = ["Sara paints 4 walls a day.", "The train leaves at 9."]


def perturb(kind: str, seed: int = 0, steps: list[str] = STEPS, lang: str = "en") -> Perturbation:
    result = PERTURBATIONS[kind](list(steps), random.Random(seed), lang=lang, pool=POOL)
    assert result is not None
    return result


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_is_reproducible_and_labels_its_first_error(kind: str) -> None:
    first, again = perturb(kind, seed=3), perturb(kind, seed=3)
    assert first == again
    assert first.steps != STEPS
    labels = first.step_labels
    assert len(labels) == len(first.steps)
    assert labels[: first.first_error] == [0] * first.first_error and labels[first.first_error] == 1
    assert all(v in (0, None) for v in labels[first.first_error + 1 :])
    assert first.steps[: first.first_error] == STEPS[: first.first_error]  # nothing before the error changed


def test_duplicate_repeats_the_step_right_after_itself() -> None:
    p = perturb("duplicate", seed=1)
    k = p.change["copy_of"]
    assert p.steps == [*STEPS[: k + 1], STEPS[k], *STEPS[k + 1 :]] and p.first_error == k + 1


def test_remove_drops_one_step_but_never_the_last() -> None:
    for seed in range(20):
        p = perturb("remove", seed=seed)
        k = p.change["removed_original"]
        assert k < len(STEPS) - 1 and p.steps == STEPS[:k] + STEPS[k + 1 :] and p.first_error == k


def test_swap_exchanges_exactly_two_steps() -> None:
    p = perturb("swap", seed=2)
    i, j = p.change["steps"]
    expected = list(STEPS)
    expected[i], expected[j] = expected[j], expected[i]
    assert p.steps == expected and p.first_error == i < j


def test_hallucinate_inserts_a_foreign_step() -> None:
    p = perturb("hallucinate", seed=4)
    k = p.first_error
    assert (
        p.steps[k] in POOL
        and p.steps[:k] + p.steps[k + 1 :] == STEPS
        and p.step_labels[k + 1 :] == [0] * (len(STEPS) - k)
    )


def test_shuffle_is_a_permutation_that_differs_first_at_the_labelled_step() -> None:
    for seed in range(10):
        p = perturb("shuffle", seed=seed)
        assert sorted(p.steps) == sorted(STEPS) and p.steps != STEPS
        assert p.steps[: p.first_error] == STEPS[: p.first_error] and p.steps[p.first_error] != STEPS[p.first_error]


@pytest.mark.parametrize("kind", ["number", "operation", "negate"])
def test_in_step_edits_change_only_the_named_span(kind: str) -> None:
    for seed in range(10):
        p = perturb(kind, seed=seed)
        k, pos, before, after = (p.change[key] for key in ("step", "position", "before", "after"))
        original = STEPS[k]
        assert original[pos : pos + len(before)] == before and before != after
        assert p.steps[k] == original[:pos] + after + original[pos + len(before) :]
        assert [s for i, s in enumerate(p.steps) if i != k] == [s for i, s in enumerate(STEPS) if i != k]


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("The total is 17.", "en", "The total is not 17."),
        ("He cannot pay.", "en", "He can pay."),
        ("It is not even.", "en", "It is even."),
        ("所以这个数是3。", "zh", "所以这个数不是3。"),
        ("但是x不是负数。", "zh", "但是x是负数。"),
        (
            "∴$$a>b$$",
            "zh",
            "∴$$a<b$$",
        ),  # no wording to negate: a relation flips? no, '>' is kept; '=' is the fallback
        ("$$x=3$$", "zh", "$$x≠3$$"),
        ("三角形两边之和大于第三边", "zh", "三角形两边之和小于第三边"),
    ],
)
def test_negation_in_both_languages(text: str, lang: str, expected: str) -> None:
    edit = negate(text, lang)
    if text == "∴$$a>b$$":
        assert edit is None
        return
    assert edit is not None and edit.text == expected


def test_number_and_operation_edits() -> None:
    rng = random.Random(0)
    edit = change_number("1. Pay 12 dollars.", rng)
    assert edit is not None and edit.before == "12" and edit.after != "12"  # the list marker "1." is left alone
    assert change_number("no digits here", rng) is None
    for text, before, after in [
        ("3 × 4 = 12", "×", "÷"),
        ("7 - 2 = 5", "-", "+"),
        (r"$$6\div 2$$", "\\div", "\\times"),
    ]:
        edit = change_operation(text, rng)
        assert edit is not None and (edit.before, edit.after) == (before, after)
    assert change_operation("a well-known fact", rng) is None


def test_gsm8k_steps_drop_annotations_and_end_with_the_answer() -> None:
    answer = samples.GSM8K_RECORDS[0]["answer"]
    assert gsm8k_steps(answer) == [
        "The baker has 24 - 9 = 15 rolls left.",
        "So 15 rolls remain.",
        "The answer is 15.",
    ]


def test_analysis_steps_split_paragraphs_then_lines_then_sentences() -> None:
    assert analysis_steps("a\n\nb") == ["a", "b"]
    assert analysis_steps("a\nb") == ["a", "b"]
    assert analysis_steps("先算3+4=7；再算7×2=14。") == ["先算3+4=7；", "再算7×2=14。"]


def test_sources_gsm8k_and_ck12(tmp_path: Path) -> None:
    gsm = load_source(samples.write_jsonl(tmp_path / "gsm.jsonl", samples.GSM8K_RECORDS))
    assert [i.id for i in gsm] == ["gsm8k-1", "gsm8k-2", "gsm8k-3"] and gsm[0].lang == "en"
    ck = load_source(samples.write_ck12(tmp_path / "ck12"))
    assert [i.id for i in ck] == ["q1", "q2"]  # q3 has one step
    assert ck[0].lang == "zh" and ck[0].steps[0] == "∵$$2x+3=9$$，" and "A. $$2$$" in ck[0].problem


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("{not json", "gsm.jsonl, line 2: not valid JSON"),
        ("[1, 2]", "gsm.jsonl, line 2: expected a JSON object, got a list"),
        ('{"question": "Q?"}', "gsm.jsonl, line 2: expected a JSON object with 'question' and 'answer'"),
        ('{"question": "Q?", "answer": 3}', "gsm.jsonl, line 2, field 'answer': expected text"),
    ],
)
def test_a_bad_gsm8k_line_is_named(tmp_path: Path, line: str, expected: str) -> None:
    path = samples.write_jsonl(tmp_path / "gsm.jsonl", samples.GSM8K_RECORDS[:1])
    path.write_text(path.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_source(path)
    assert expected in str(caught.value)


def test_a_set_is_reproducible_and_feeds_meta_eval(tmp_path: Path) -> None:
    items = [SourceItem("a", "Q1?", tuple(STEPS), "en"), SourceItem("b", "Q2?", tuple(POOL * 2), "en")]
    first = build_diagnostic_set(items, seed=5)
    assert first.records == build_diagnostic_set(items, seed=5).records
    assert first.records != build_diagnostic_set(items, seed=6).records
    # one item's perturbations do not depend on the other items (except which foreign step is inserted)
    alone = build_diagnostic_set(items[:1], seed=5, kinds=[k for k in KINDS if k != "hallucinate"]).records
    assert alone == [r for r in first.records if r["meta"]["source_id"] == "a" and r["meta"]["kind"] != "hallucinate"]
    out = tmp_path / "set.jsonl"
    write_jsonl(first.records, out)
    solutions = load_solutions(out, "chains")
    assert len(solutions) == len(first.records)
    originals = [s for s in solutions if s.meta["kind"] == "original"]
    assert originals and all(not s.has_error and s.target == -1 for s in originals)
    assert all(s.has_error and s.target == s.meta["change"]["step"] for s in solutions if s.meta["kind"] != "original")
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["meta"]["seed"] == 5
