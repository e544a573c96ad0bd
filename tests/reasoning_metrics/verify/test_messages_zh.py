"""Every flag the detectors raise carries its line in Chinese too, for the Chinese page (#26 item 8).

On the real Chinese answers of ``data/ck12_errors`` (their questions and analyses joined from the
CK12 release), with the gold answer and the run's grade as ``score`` gives them.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from reasoning_metrics.verify import assess_one
from reasoning_metrics.verify.detector import Reference
from reasoning_metrics.verify.flags import FLAG_NAMES, FlagKind
from reasoning_metrics.verify.scored import ScoredSolution
from tests.conftest import REPO

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_kind_of_flag_has_a_name_in_both_languages() -> None:
    from reasoning_metrics.records import FLAG_NAMES as STEP_FLAGS
    from reasoning_metrics.records import Flag

    assert set(FLAG_NAMES) == set(FlagKind)
    assert set(STEP_FLAGS) >= set(Flag.__args__)
    for zh, en in [*FLAG_NAMES.values(), *STEP_FLAGS.values()]:
        assert CJK.search(zh) and not CJK.search(en)


@pytest.mark.slow
def test_every_flag_on_real_chinese_answers_has_a_chinese_line(shared_data: Path) -> None:
    from reasoning_metrics.metaeval.ck12_labels import read_ck12_labels

    solutions = [
        s
        for path in sorted((REPO / "data" / "ck12_errors").glob("*.jsonl"))
        for _, s in read_ck12_labels(path, shared_data / "ck12")
    ]
    kinds: Counter[str] = Counter()
    for s in solutions:
        correct = s.meta["graded_correct"]
        reference = Reference("".join(s.meta["gold"]), s.meta["analysis"], correct)
        assessed = assess_one(ScoredSolution(s.id, s.problem, s.steps), reference=reference)
        for flag in [f for step in assessed.steps for f in step.flags] + list(assessed.flags):
            kinds[flag.kind] += 1
            assert flag.message_zh and CJK.search(flag.message_zh), (s.id, flag)
            assert not re.search(r"\b(?:the|does|not|hold|gives|analysis|chooses|against)\b", flag.message_zh), flag
    assert len(solutions) == 484
    assert len(kinds) >= 8, kinds  # most kinds of the CPU detectors came up
