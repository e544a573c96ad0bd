"""CK12's error categories of a wrong answer (#26 item 7): illogical, problem-solving, gibberish."""

from __future__ import annotations

import json

import pytest

from runners.errortypes import error_type, is_gibberish
from tests.conftest import REPO

LOOP = "我们需要找到一个三角形，其三个内角的度数之比是1:2:3\n" * 6
CHAIN = (
    "设这个数为x。\n根据题意，x的相反数等于它本身，即 -x = x。\n两边同时加上x，得到 2x = 0。\n"
    "所以 x = 0。\n因此，正确答案是：A"
)


@pytest.mark.parametrize(
    ("output", "status", "correct", "expected"),
    [
        (CHAIN, "ok", True, None),  # right: no error
        (None, "failed", None, None),  # the request failed: no answer to sort
        (None, "ok", False, None),  # rank-options: scored without text
        (CHAIN, "ok", False, "problem_solving"),
        ("正确答案是：C", "ok", False, "problem_solving"),
        ("抱歉，我无法回答这个问题。", "unparsed", False, "illogical"),
        ("这道题考查的是三角形的内角和。", "unparsed", False, "illogical"),
        ("", "unparsed", False, "gibberish"),
        (LOOP, "unparsed", False, "gibberish"),
        (LOOP + "正确答案是：B", "ok", False, "gibberish"),  # a letter at the end of a loop is no reasoning
        ("星、火星、木星、金星、水星、土星、火" * 12, "unparsed", False, "gibberish"),
        ("$$}{\\\\%#@!~^&*()_+|}{:?><,./;'[]=-" * 3, "unparsed", False, "gibberish"),
    ],
)
def test_categories(output: str | None, status: str, correct: bool | None, expected: str | None) -> None:
    assert error_type(output, status, correct) == expected


def test_an_answer_the_loop_guard_stopped_is_gibberish_however_short_its_loop() -> None:
    two_copies = CHAIN.split("\n", 1)[0] + "\n" + "所以 x = 0。\n" * 2  # too few copies for the text rules
    assert error_type(two_copies, "unparsed", False) == "illogical"
    assert error_type(two_copies, "unparsed", False, "loop") == "gibberish"
    assert error_type(two_copies, "unparsed", True, "loop") is None  # a right answer has no error type


def test_the_labelled_ck12_answers_are_mostly_readable() -> None:
    """On the project's hand-labelled CK12 answers, the answers with a first wrong step (their chain is
    read, so mostly readable text) are rarely gibberish, and the loops the labellers saw are."""
    records = [
        json.loads(line)
        for file in sorted((REPO / "data" / "ck12_errors").glob("*.jsonl"))
        for line in file.read_text(encoding="utf-8").splitlines()
    ]
    stepped = [r for r in records if r["kind"] is not None]
    flagged = sum(is_gibberish(r["output"]) for r in stepped)
    assert flagged / len(stepped) < 0.15, (flagged, len(stepped))
    assert is_gibberish(next(r["output"] for r in records if "火星、木星、金星、水星、土星、火星" in r["output"]))
