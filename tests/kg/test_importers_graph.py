"""Graph helpers (questions_under, path_of, resolve, stats, walk) on a small graph whose counts are known."""

from __future__ import annotations

import pytest

from kg.graph import KnowledgeGraph, build_graph, node_ids
from kg.importers import load_questions
from kg.records import Knowledge, Question
from tests.importer_helpers import FIXTURES
from tests.qfactory import single


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    return build_graph(load_questions(FIXTURES / "ck12", "ck12").questions)


def ids(questions: list[Question]) -> set[str]:
    return {q.id for q in questions}


def test_questions_under_each_level(graph: KnowledgeGraph) -> None:
    assert len(graph.questions_under("subject:数学")) == 8
    assert ids(graph.questions_under("l1:数学/数与式")) == {"m-single-1", "m-single-2", "m-judge-1"}
    assert ids(graph.questions_under("l2:数学/数与式/实数")) == {"m-single-1", "m-judge-1"}
    assert ids(graph.questions_under("q:e-cloze-1")) == {"e-cloze-1"}
    with pytest.raises(KeyError):
        graph.questions_under("subject:物理")


def test_path_of(graph: KnowledgeGraph) -> None:
    assert graph.path_of("m-sort-1") == [
        "subject:数学",
        "l1:数学/方程与不等式",
        "l2:数学/方程与不等式/一元一次方程",
        "q:m-sort-1",
    ]
    with pytest.raises(KeyError, match="no question"):
        graph.path_of("nope")


@pytest.mark.parametrize(
    ("ref", "node"),
    [
        ("数学", "subject:数学"),
        ("数学/函数", "l1:数学/函数"),
        ("数学/函数/一次函数", "l2:数学/函数/一次函数"),
        ("l1:数学/函数", "l1:数学/函数"),
        ("m-fill-1", "q:m-fill-1"),
    ],
)
def test_resolve(graph: KnowledgeGraph, ref: str, node: str) -> None:
    assert graph.resolve(ref) == node


def test_resolve_unknown(graph: KnowledgeGraph) -> None:
    with pytest.raises(KeyError, match="no node"):
        graph.resolve("数学/几何")


def test_stats_of_a_subject_and_of_the_graph(graph: KnowledgeGraph) -> None:
    math = graph.stats("subject:数学")
    assert (math.kind, math.name, math.questions, math.level1, math.level2) == ("subject", "数学", 8, 5, 6)
    assert math.by_type == {"single_choice": 2, "multiple_choice": 2, "judgment": 2, "fill_in_blank": 1, "sorting": 1}
    whole = graph.stats()
    assert (whole.kind, whole.questions, whole.level1, whole.level2) == ("graph", 9, 6, 7)
    assert whole.by_subject == {"数学": 8, "英语": 1} and whole.by_stage == {"middle": 9}


def test_walk_is_depth_first_and_sorted(graph: KnowledgeGraph) -> None:
    walked = list(graph.walk("l1:数学/数与式"))
    assert walked == [
        (0, "l1:数学/数与式"),
        (1, "l2:数学/数与式/实数"),
        (2, "q:m-judge-1"),
        (2, "q:m-single-1"),
        (1, "l2:数学/数与式/有理数的运算"),
        (2, "q:m-single-2"),
    ]
    everything = list(graph.walk())
    assert len(everything) == 24 and everything[0] == (0, "subject:数学")
    assert sum(1 for depth, _ in everything if depth == 0) == 2


def test_slash_in_a_name_is_escaped() -> None:
    knowledge = Knowledge(level1="力/热", level2="力/热")
    question = single(("a", "b"), "A", id="x/1", source="mapped", subject="物理/化学", stem="?", knowledge=knowledge)
    graph = build_graph([question])
    assert node_ids(question)["level1"] == "l1:物理%2F化学/力%2F热"
    assert graph.path_of("x/1")[-1] == "q:x/1" and graph.resolve("x/1") == "q:x/1"
