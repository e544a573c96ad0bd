"""The splitter in linear time gives the steps it gave before (#14 finding 7); speed: benchmarks/detector_scaling.py."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reasoning_metrics.split import _PLACEHOLDER, _mask_math, split_steps

REGEX_MATH = re.compile(
    r"\$\$.+?\$\$"
    r"|\$(?=[^\s$])[^$\n]*?(?<=[^\s\\$])\$(?!\d)"
    r"|\\\(.+?\\\)"
    r"|\\\[.+?\\\]",
    re.S,
)
"""The one expression the masking replaced: it scanned to the end of the text from every unclosed opener."""


@settings(derandomize=True, max_examples=400, deadline=None)
@given(st.text(alphabet="$\\()[] a1.\n", max_size=40))
@example("\\(\\(\\(x")
@example("$$ a $ b $$ c $d$")
@example("$2 each, $3 in all: $x$ and \\[y\\]")
@pytest.mark.slow
def test_math_is_masked_exactly_where_the_expression_found_it(text: str) -> None:
    assert _mask_math(text) == REGEX_MATH.sub(lambda m: _PLACEHOLDER * len(m.group()), text)


def test_runs_of_punctuation_stay_on_their_step() -> None:
    for mark in "!.?":
        assert split_steps("So it is 5" + mark * 50_000, "en") == ["So it is 5" + mark * 50_000]
        text = "So it is 5" + mark * 1000 + " Then 6."
        assert split_steps(text, "en") == ["So it is 5" + mark * 1000, "Then 6."]


def test_punctuation_only_lines_are_glued_to_their_step() -> None:
    assert split_steps("It is 5\n" + "!\n" * 2000 + "Then 6", "en") == ["It is 5" + "!" * 2000, "Then 6"]


def test_a_long_word_before_a_period_is_no_abbreviation() -> None:
    long_word = "x" * 40 + "e.g"
    assert split_steps(f"It is {long_word}. Then 6.", "en") == [f"It is {long_word}.", "Then 6."]
    assert split_steps("See e.g. Then 6.", "en") == ["See e.g. Then 6."]
    assert split_steps("1. First\n  2. Second", "en") == ["1. First", "2. Second"]
