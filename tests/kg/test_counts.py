"""`kg stats` counts a bank in one pass (kg.counts): the same numbers as the graph built from all of it."""

from __future__ import annotations

from pathlib import Path

from kg.counts import BankCounts, most_common
from kg.graph import build_graph
from kg.importers import iter_questions, load_questions

SAMPLE = Path(__file__).resolve().parents[2] / "k12eval" / "data" / "sample"


def test_one_pass_counts_match_the_graph_of_the_whole_bank() -> None:
    questions = load_questions(SAMPLE).questions
    graph = build_graph(questions)
    whole = graph.stats()
    counts = BankCounts()
    for q in iter_questions(SAMPLE):
        counts.add(q)
    assert counts.questions == whole.questions == len(questions)
    assert (len(counts.level1), len(counts.level2)) == (whole.level1, whole.level2)
    assert len(counts.subjects) == len(graph.nodes_of_kind("subject"))
    assert most_common(counts.by_type) == whole.by_type and list(most_common(counts.by_type)) == list(whole.by_type)
    assert most_common(counts.by_subject) == whole.by_subject
    assert most_common(counts.by_stage) == whole.by_stage
    assert most_common(counts.by_difficulty) == whole.by_difficulty
    assert counts.sparse_level2() == graph.sparse_level2()
    assert counts.sparse_level2(minimum=3) == graph.sparse_level2(minimum=3)
