"""``k12eval kg stats | show | export`` on the importer fixtures, through typer's CliRunner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import networkx as nx
import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.graph import node_link_keywords
from tests.importer_helpers import FIXTURES, write_jsonl

runner = CliRunner()
CK12 = str(FIXTURES / "ck12")


def stats_json(*args: str) -> dict[str, object]:
    result = runner.invoke(app, ["kg", "stats", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_stats_json_counts_the_ck12_fixture() -> None:
    summary = stats_json(CK12)
    assert summary["format"] == "ck12" and summary["questions"] == 9
    assert (summary["subjects"], summary["level1"], summary["level2"]) == (2, 6, 7)
    assert summary["by_type"] == {
        "single_choice": 2,
        "multiple_choice": 2,
        "judgment": 2,
        "fill_in_blank": 1,
        "sorting": 1,
        "cloze": 1,
    }
    assert summary["by_subject"] == {"数学": 8, "英语": 1}
    assert summary["by_difficulty"] == {"较易": 8, "中档": 1}
    assert (summary["invalid"], summary["warnings"]) == (0, 1)


@pytest.mark.parametrize(
    ("args", "fmt", "questions", "subjects"),
    [
        ([str(FIXTURES / "cmmlu")], "cmmlu", 7, 2),
        ([str(FIXTURES / "ceval")], "ceval", 4, 2),
        ([str(FIXTURES / "xiezhi")], "xiezhi", 7, 3),
        (["--variant", "distractors", CK12], "ck12", 1, 1),
        (
            [str(FIXTURES / "mapped" / "bank.jsonl"), "--mapping", str(FIXTURES / "mapped" / "mapping.toml")],
            "mapped",
            5,
            2,
        ),
    ],
)
def test_stats_json_for_every_format(args: list[str], fmt: str, questions: int, subjects: int) -> None:
    summary = stats_json(*args)
    assert (summary["format"], summary["questions"], summary["subjects"]) == (fmt, questions, subjects)


def test_taxonomy_option(tmp_path: Path) -> None:
    data = Path(shutil.copy(FIXTURES / "xiezhi" / "xiezhi_mini.jsonl", tmp_path / "bank.jsonl"))
    unplaced = stats_json(str(data))
    placed = stats_json(str(data), "--taxonomy", str(FIXTURES / "xiezhi"))
    assert unplaced["by_subject"] == {"未归类": 7} and unplaced["warnings"] == 7
    # 数学, 理学, 工学 counts in 理学 and in 工学, as Xiezhi's scorer counts a question under every label; 统计学 beside
    # 理学 is 理学's, and opens no place in 经济学.
    assert placed["by_subject"] == {"理学": 5, "工学": 2, "经济学": 1} and placed["warnings"] == 1
    assert (placed["questions"], placed["placed_twice"]) == (7, 1)


def bad_bank(tmp_path: Path) -> Path:
    record = {"question": "1+1", "labels": ["理学"], "answer": "2", "options": "1\n2"}
    shutil.copytree(FIXTURES / "xiezhi" / "discipline_taxonomy", tmp_path / "discipline_taxonomy")
    return write_jsonl(
        tmp_path / "bank.jsonl", [record, {**record, "answer": "3"}, "not json", {**record, "labels": []}, record]
    )


def test_bad_record_stops_with_one_error_line(tmp_path: Path) -> None:
    data = bad_bank(tmp_path)
    result = runner.invoke(app, ["kg", "stats", str(data)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {data}, line 2 (record xiezhi/bank/2), field 'answer': the answer '3' matches no option; "
        "it must match exactly one"
    )
    assert "Traceback" not in result.output


def test_skip_invalid_counts(tmp_path: Path) -> None:
    data = bad_bank(tmp_path)
    result = runner.invoke(app, ["kg", "stats", "--json", "--skip-invalid", str(data)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["questions"] == 2 and summary["invalid"] == 3
    assert summary["invalid_by_field"] == {"answer": 1, "record": 1, "labels": 1}
    assert "skipped 3 invalid record(s)" in result.stderr and f"{data}, line 3" in result.stderr


def test_show_a_subtree() -> None:
    result = runner.invoke(app, ["kg", "show", CK12, "数学/函数"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "函数  (2)  l1:数学/函数"
    assert lines[1] == "  一次函数  (2)  l2:数学/函数/一次函数"
    assert {line.split()[0] for line in lines[2:]} == {"q:m-multi-1", "q:m-single-3"}


def test_show_all_subjects_to_depth_zero() -> None:
    result = runner.invoke(app, ["kg", "show", CK12, "--depth", "0"])
    assert result.stdout.splitlines() == ["数学  (8)  subject:数学", "英语  (1)  subject:英语"]


def test_show_unknown_node() -> None:
    result = runner.invoke(app, ["kg", "show", CK12, "物理"])
    assert result.exit_code == 2 and result.stderr.startswith("error: no node '物理'")


@pytest.mark.parametrize("suffix", [".json", ".graphml"])
def test_export_and_reload(tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"graph{suffix}"
    result = runner.invoke(app, ["kg", "export", CK12, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "24 nodes, 9 questions" in result.stdout
    if suffix == ".json":
        graph = nx.node_link_graph(json.loads(out.read_text(encoding="utf-8")), **node_link_keywords())
    else:
        graph = nx.read_graphml(out)
    kinds: dict[str, int] = {}
    for _, data in graph.nodes(data=True):
        kinds[data["kind"]] = kinds.get(data["kind"], 0) + 1
    assert kinds == {"subject": 2, "level1": 6, "level2": 7, "question": 9}
    assert graph.number_of_edges() == 22
    assert set(graph.successors("l2:数学/函数/一次函数")) == {"q:m-single-3", "q:m-multi-1"}
    cloze = graph.nodes["q:e-cloze-1"]
    assert (cloze["type"], cloze["category"], cloze["language"]) == ("cloze", "题型", "en")


def test_export_refuses_other_suffixes(tmp_path: Path) -> None:
    result = runner.invoke(app, ["kg", "export", CK12, "--out", str(tmp_path / "graph.csv")])
    assert result.exit_code == 2 and "must end in .json or .graphml" in result.stderr


def test_ceval_test_split_skip_is_said_on_stderr() -> None:
    result = runner.invoke(app, ["kg", "stats", str(FIXTURES / "ceval")])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("4 questions in 2 splits (ceval, original)")
    # each split apart, the one run scores named (#31 item 1): dev questions are not part of an evaluation count
    assert "split: val 2 (scored by run), dev 2 (few-shot exemplars)" in result.stdout
    assert "skipped 1 test-split file(s) without answers" in result.stderr


def test_stats_warns_of_level2_points_under_ck12s_ten_questions(tmp_path: Path) -> None:
    """CK12 keeps no fewer than 10 questions a level-2 point (#26 item 7): kg stats says which fall short."""
    from tests.importer_helpers import ck12_record

    full = [ck12_record(id=f"f{i}") for i in range(10)]  # 有理数: 10 questions
    thin = [ck12_record(id=f"t{i}", knowledge_domain=["初中", "数学", "知识点", "数与式", "实数"]) for i in range(3)]
    data = write_jsonl(tmp_path / "初中" / "数学" / "单选.jsonl", full + thin)
    result = runner.invoke(app, ["kg", "stats", "--json", str(data)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["level2_under_10"] == 1
    assert "warning: 1 of 2 level-2 point(s) have fewer than 10 questions" in result.stderr
    assert "数学/数与式/实数 (3)" in result.stderr and "有理数" not in result.stderr
