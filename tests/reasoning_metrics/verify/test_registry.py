"""The detector registry is the one place a detector is named: the aggregate, ``k12eval score`` and the
meta-evaluation all read it, and each kind of flag has one detector behind it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass, fields, replace

import pytest

import reasoning_metrics.verify.detectors as detector_modules
from reasoning_metrics.metaeval.data import LabelledSolution
from reasoning_metrics.metaeval.detectors import MEASURED as METAEVAL
from reasoning_metrics.metaeval.detectors import DetectionContext, run_detectors
from reasoning_metrics.verify.aggregate_rule import assess_solutions
from reasoning_metrics.verify.detector import Evidence, Reference
from reasoning_metrics.verify.flags import FlagKind
from reasoning_metrics.verify.registry import DETECTORS, current_names
from reasoning_metrics.verify.rules.arithmetic import check_steps
from reasoning_metrics.verify.rules.baseline import roscoe_scores
from reasoning_metrics.verify.rules.contradiction import step_contradictions
from reasoning_metrics.verify.scored import DETECTORS as SCORED
from tests.reasoning_metrics.verify.fakes import TableEncoder, WordNLI

COUNTED = [name for name, detector in DETECTORS.items() if detector.orientation]
"""The detectors meta-eval scores alone by their flags: those whose class declares an orientation."""


@dataclass
class Sol:
    id: str
    problem: str
    steps: list[str]


SOLUTIONS = [
    Sol(
        "many",
        "Tom has 12 apples and buys 5 more. He gives away 3 of them. How many apples does he have?",
        ["12 + 5 = 18", "Wait, 12 + 5 = 18", "He does not give any away: 18 x 37 = 666", "So he has 666 left"],
    ),
    Sol("equation", "Solve x + 150 = 500.", ["150 + x = 500", "x = 350 - 150 = 200", "The answer is 200."]),
    Sol(
        "half",
        "5 children share 12 cakes equally. How many cakes does each child get?",
        ["12 / 5 = 2.4", "The answer is 2.4."],
    ),
    Sol("facts", "长方形的长为3，宽为2，求面积。", ["10是质数", "长为3，宽为2的长方形面积为5"]),
    Sol("reference", "若x满足x+2=5，求x。", ["x < 2", "x = 2", "故答案为2"]),
    Sol("departure", "8人两两握手，共握手几次？", ["8 / 2 = 4"]),
    Sol("verdict", "下列说法正确的是（　　）\nA. 水是单质\nB. 氧气能支持燃烧", ["A. 水是单质", "这个说法是正确的。"]),
]
REFERENCES = [
    Reference("17", "12 + 5 - 3 = 14"),
    Reference("350", "x = 500 - 150 = 350"),
    Reference("2.4", "12 ÷ 5 = 2.4", correct=True),
    Reference("5", "3 × 2 = 6"),
    Reference("3", "由题意x>2.9\n\nx=5-2=3\n\n故答案为3"),
    Reference("C", "8×7÷2=28", correct=False),
    Reference("B", "水是化合物，A错误；氧气能支持燃烧，B正确。故选B。", correct=False),
]
EVERY_KIND = set(FlagKind) - {FlagKind.NOT_CHECKED}
"""``not_checked`` is the aggregate's own: no detector ran."""


def _evidence() -> list[Evidence]:
    roscoe = roscoe_scores(SOLUTIONS, TableEncoder({}, default=[1.0, 0.0]))
    contradictions = step_contradictions([(s.problem, s.steps) for s in SOLUTIONS], WordNLI())
    return [
        Evidence(
            s.problem,
            s.steps,
            check_steps(s.steps),
            roscoe[k],
            contradictions[k],
            judged=0,
            reference=REFERENCES[k],
            prm=[0.9] + [0.2] * (len(s.steps) - 1),
            rollouts=([0.5, 0.0] + [None] * len(s.steps))[: len(s.steps)],
        )
        for k, s in enumerate(SOLUTIONS)
    ]


def _classes() -> list[type]:
    """Every detector class in reasoning_metrics/verify/detectors/, registered or not."""
    found = []
    for info in pkgutil.iter_modules(detector_modules.__path__):
        module = importlib.import_module(f"{detector_modules.__name__}.{info.name}")
        found += [c for _, c in inspect.getmembers(module, inspect.isclass) if c.__module__ == module.__name__]
    return [c for c in found if callable(getattr(c, "find", None))]


def test_every_detector_module_is_registered_once_under_its_own_name() -> None:
    classes = _classes()
    assert sorted(c.__name__ for c in classes) == sorted(type(d).__name__ for d in DETECTORS.values())
    assert all(name == detector.name for name, detector in DETECTORS.items())


def test_every_kind_of_flag_is_raised_by_exactly_one_detector() -> None:
    owners = {kind: [d.name for d in DETECTORS.values() if kind in d.kinds] for kind in FlagKind}
    assert {kind: len(names) for kind, names in owners.items() if kind in EVERY_KIND} == dict.fromkeys(EVERY_KIND, 1)
    assert owners[FlagKind.NOT_CHECKED] == []


def test_a_detector_raises_only_its_kinds_and_reads_only_what_it_declares() -> None:
    optional = {"roscoe", "contradictions", "judged", "reference"}
    assert {f.name for f in fields(Evidence)} >= {i for d in DETECTORS.values() for i in d.reads}
    seen = set()
    for evidence in _evidence():
        for detector in DETECTORS.values():
            assert detector.needs <= detector.reads, detector.name
            found = detector.find(evidence)
            assert len(found.steps) == len(evidence.steps), detector.name
            kinds = {f.kind for flags in found.steps for f in flags} | {f.kind for f in found.solution}
            assert kinds <= detector.kinds, detector.name
            seen |= kinds
            unread = {name: None for name in optional - detector.reads}
            assert detector.find(replace(evidence, **unread)) == found, detector.name  # type: ignore[arg-type]
    assert seen == EVERY_KIND  # the samples exercise every detector


def test_the_aggregate_names_the_registry_detectors_that_ran() -> None:
    everything = assess_solutions(
        SOLUTIONS,
        encoder=TableEncoder({}, default=[1.0, 0.0]),
        nli=WordNLI(),
        judged=[0] + [-1] * (len(SOLUTIONS) - 1),
        references=REFERENCES,
        prm=[[0.9] * len(s.steps) for s in SOLUTIONS],
        rollouts=[[1.0] * len(s.steps) for s in SOLUTIONS],
    )
    assert [a.detectors for a in everything] == [list(DETECTORS)] * len(SOLUTIONS)
    bare = assess_solutions(SOLUTIONS)
    for a in bare:
        assert set(a.detectors) | set(a.unavailable) == set(DETECTORS)
        assert not set(a.detectors) & set(a.unavailable)


def test_score_and_meta_evaluation_use_the_registry_names() -> None:
    assert set(SCORED) == set(DETECTORS) - {"judge", "prm", "rollouts"}
    assert set(COUNTED) <= set(DETECTORS) and set(COUNTED) <= set(METAEVAL)
    assert {"contradiction", "judge"} <= set(DETECTORS) & set(METAEVAL)


@pytest.mark.parametrize("name", sorted(COUNTED))
def test_meta_evaluation_scores_each_counting_detector_by_its_own_flags(name: str) -> None:
    solutions = [
        LabelledSolution(
            s.id,
            s.problem,
            tuple(s.steps),
            True,
            None,
            (None,) * len(s.steps),
            meta={"gold": [r.answer], "analysis": r.analysis, "graded_correct": r.correct},
        )
        for s, r in zip(SOLUTIONS, REFERENCES, strict=True)
    ]
    (result,) = run_detectors(DetectionContext(solutions), [name])
    for evidence, steps in zip(_evidence(), result.step_scores, strict=True):
        flags = DETECTORS[name].find(replace(evidence, roscoe=None, contradictions=None, judged=None)).steps
        assert [bool(v) for v in steps] == [bool(f) for f in flags]
    assert any(v for steps in result.step_scores for v in steps)


def test_old_names_are_read_as_todays() -> None:
    old = ["arithmetic", "equations", "quantities", "doubt", "completeness", "roscoe", "contradiction"]
    added_since = ("facts", "reference", "option_verdicts")  # registered after the renaming: an old file never ran them
    assert current_names(old) == [name for name in SCORED if name not in added_since]
    assert current_names(list(SCORED)) == list(SCORED)
    assert current_names(["arithmetic", "quantities", "mystery"]) == [
        "arithmetic",
        "unsupported_numbers",
        "repetition",
        "unused_given",
        "not_whole",
        "mystery",
    ]
