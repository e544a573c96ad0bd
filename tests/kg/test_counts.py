"""`kg stats` counts a bank in one pass (kg.counts): the same numbers as the graph built from all of it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
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


def _shared_banks(shared_data: Path) -> dict[str, Path]:
    banks = {name: shared_data / name for name in ("ck12", "cmmlu", "ceval", "xiezhi")}
    release = os.environ.get("K12EVAL_GAOKAO_DATA")  # GAOKAO-Bench's Data/ (Apache-2.0), when fetched
    if release:
        banks["gaokao"] = Path(release)
    return banks


@pytest.mark.shared_data
@pytest.mark.slow
def test_kg_stats_totals_are_the_graphs_on_every_shared_bank_and_split(shared_data: Path) -> None:
    """What ``kg stats --json`` prints, split by split, is what the graph built from those questions counts."""
    for name, path in _shared_banks(shared_data).items():
        questions = load_questions(path).questions
        for split in [None, *sorted({q.split for q in questions if q.split})]:
            args = ["kg", "stats", str(path), "--json", *(["--split", split] if split else [])]
            result = CliRunner().invoke(app, args)
            assert result.exit_code == 0, (name, split, result.output)
            printed = json.loads(result.stdout)
            chosen = [q for q in questions if split is None or q.split == split]
            whole = build_graph(chosen).stats()
            assert printed["questions"] == whole.questions == len(chosen), (name, split)
            assert (printed["level1"], printed["level2"]) == (whole.level1, whole.level2), (name, split)
            assert (printed["subjects"], printed["by_subject"]) == (len(whole.by_subject), whole.by_subject), name
            assert printed["by_type"] == whole.by_type, (name, split)
