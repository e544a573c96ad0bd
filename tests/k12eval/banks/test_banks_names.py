"""The names users type for a benchmark (lm-eval, OpenCompass, the hub id, hf://) and what each stands for (#34 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from k12eval.banks import BENCHMARKS, find_benchmark, hub_id


@pytest.mark.parametrize(
    ("typed", "name", "subject"),
    [
        ("ceval", "ceval", None),
        ("C-Eval", "ceval", None),
        ("ceval/ceval-exam", "ceval", None),  # lm-eval's dataset_path
        ("ceval-valid", "ceval", None),  # lm-eval's group
        ("ceval-valid_computer_network", "ceval", "计算机网络"),  # an lm-eval task
        ("ceval-high_school_physics", "ceval", "高中物理"),  # an OpenCompass abbr
        ("hf://ceval/ceval-exam", "ceval", None),
        ("hf://datasets/ceval/ceval-exam", "ceval", None),
        (str(Path("hf://ceval/ceval-exam")), "ceval", None),  # as a Path argument writes it: hf:/ceval/...
        ("haonan-li/cmmlu", "cmmlu", None),
        ("cmmlu", "cmmlu", None),
        ("cmmlu_agronomy", "cmmlu", "农学"),  # lm-eval
        ("cmmlu-agronomy", "cmmlu", "农学"),  # OpenCompass
        ("GAOKAO-Bench", "gaokao", None),
        ("GaokaoBench", "gaokao", None),  # OpenCompass's dataset name
        ("OpenLMLab/GAOKAO-Bench", "gaokao", None),
        ("tal-tech/chinese-k12-evaluation", "ck12", None),
        ("MikeGu721/XiezhiBenchmark", "xiezhi", None),
    ],
)
def test_a_typed_name_finds_its_benchmark(typed: str, name: str, subject: str | None) -> None:
    found = find_benchmark(typed)
    assert found is not None and (found.benchmark.name, found.subject) == (name, subject)


@pytest.mark.parametrize("typed", ["mmlu", "ceval-valid_no_such_subject", "cmmlu_", "data/ceval", "hf://ceval"])
def test_other_names_are_not_benchmarks(typed: str) -> None:
    assert find_benchmark(typed) is None


def test_no_name_stands_for_two_benchmarks() -> None:
    seen: dict[str, str] = {}
    for benchmark in BENCHMARKS:
        hub = [benchmark.hub.repo_id] if benchmark.hub else []
        for typed in {n.casefold() for n in (benchmark.name, *benchmark.aliases, *hub)}:
            assert seen.setdefault(typed, benchmark.name) == benchmark.name, typed


def test_each_benchmark_says_where_it_is_published_and_under_which_licence() -> None:
    for benchmark in BENCHMARKS:
        assert (benchmark.hub is None) != (benchmark.archive is None), benchmark.name
        assert benchmark.licence and benchmark.homepage.startswith("https://github.com/")
        if benchmark.archive is not None:
            assert len(benchmark.archive.commit) == 40  # pinned: the same files for everyone
            assert benchmark.archive.url.endswith(f"/archive/{benchmark.archive.commit}.zip")


def test_hub_ids_are_read_from_hf_urls_only() -> None:
    assert hub_id("hf://org/name") == "org/name"
    assert hub_id("HF:/datasets/org/name") == "org/name"
    assert hub_id("org/name") is None
    assert hub_id("hf://org") is None


def test_kg_commands_and_load_bank_read_the_subject_an_lm_eval_task_name_carries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/data.md: `k12eval kg stats ceval-valid_computer_network` is that subject alone, as run reads it; kg and
    # load_bank read the whole bank instead.
    import json

    from typer.testing import CliRunner

    from k12eval import load_bank
    from k12eval.cli import app
    from tests.importer_helpers import write_text

    header = ",Question,A,B,C,D,Answer\n"
    for subject, stem in (("agronomy", "水稻属于____"), ("anatomy", "人体最大的器官是____")):
        write_text(tmp_path / "cmmlu" / "test" / f"{subject}.csv", f"{header}0,{stem},甲,乙,丙,丁,A\n")
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    runner = CliRunner()
    assert runner.invoke(app, ["data", "pull", "cmmlu", "--from", str(tmp_path / "cmmlu")]).exit_code == 0
    stats = runner.invoke(app, ["kg", "stats", "cmmlu_agronomy", "--json"])
    assert stats.exit_code == 0 and json.loads(stats.stdout)["by_subject"] == {"农学": 1}, stats.output
    shown = runner.invoke(app, ["kg", "show", "cmmlu-anatomy"])
    assert shown.exit_code == 0 and "解剖学" in shown.stdout and "农学" not in shown.stdout, shown.output
    assert [q.subject for q in load_bank("cmmlu_agronomy")] == ["农学"]
    assert sorted(q.subject for q in load_bank("cmmlu")) == ["农学", "解剖学"]
