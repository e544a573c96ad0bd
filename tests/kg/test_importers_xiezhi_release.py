"""Xiezhi read as released (#31 item 4): the ``.json`` JSON-lines files, folders, the taxonomy where the release
keeps it, ids unique across spec / inter / train and both languages. The tree is written here (tests/xiezhi_tree.py)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.importers import detect_format, load_questions
from kg.importers.xiezhi import file_name, release_language, release_split
from tests.xiezhi_tree import write_release


@pytest.fixture
def release(tmp_path: Path) -> Path:
    return write_release(tmp_path / "XiezhiBenchmark")


def test_a_released_json_lines_file_is_detected_and_placed_by_the_taxonomy_three_folders_up(release: Path) -> None:
    # Before: "cannot tell the format" (a .json file), and every question under 未归类 (taxonomy not found).
    spec = release / "Benchmarks" / "test" / "xiezhi_spec_chn" / "xiezhi.v1.1.json"
    assert detect_format(spec) == "xiezhi"
    questions = load_questions(spec).questions
    assert len(questions) == 16 and {q.subject for q in questions} == {"理学", "工学"}
    first = questions[0]
    assert first.id == "xiezhi/xiezhi_spec_chn/1" and first.knowledge.path == ["理学", "数学", "应用数学"]
    assert "warnings" not in first.extra and first.split == "test" and first.extra["xiezhi_set"] == "specialty"


@pytest.mark.parametrize("where", ["Benchmarks/test", "Benchmarks", "."])
def test_a_folder_reads_every_released_file_with_ids_unique_across_sets_and_languages(
    release: Path, where: str
) -> None:
    # Before: a folder read no file, and spec + inter collided on 'xiezhi/xiezhi.v1.1/1'.
    folder = release / where
    assert detect_format(folder) == "xiezhi"  # the taxonomy's JSON documents are not records
    questions = load_questions(folder).questions
    files = Counter(q.id.split("/")[1] for q in questions)
    expected = {"xiezhi_spec_chn": 16, "xiezhi_inter_chn": 12, "xiezhi_spec_eng": 2}
    if where != "Benchmarks/test":
        expected["xiezhi_train_chn"] = 6
    assert files == expected
    assert Counter(q.split for q in questions) == {"test": 30, **({"train": 6} if "xiezhi_train_chn" in files else {})}
    english = next(q for q in questions if q.id == "xiezhi/xiezhi_spec_eng/1")
    assert english.language == "en" and english.knowledge.path == ["Science", "Mathematics"]
    inter = next(q for q in questions if q.id == "xiezhi/xiezhi_inter_chn/1")
    assert inter.extra["xiezhi_set"] == "interdiscipline"


def test_ids_and_splits_come_from_the_release_names() -> None:
    assert file_name(Path("Benchmarks/test/xiezhi_inter_eng/xiezhi.v1.1.json")) == "xiezhi_inter_eng"
    assert file_name(Path("tasks/xiezhi_spec_chn/xiezhi.v1.json")) == "xiezhi_spec_chn"
    assert file_name(Path("xiezhi_spec_chn.sample500.jsonl")) == "xiezhi_spec_chn.sample500"  # the shared copy's
    assert release_split(Path("Benchmarks/train/xiezhi_train_eng/xiezhi.v1.1.json")) == "train"
    assert release_split(Path("xiezhi_spec_chn.sample500.jsonl")) == "test"
    assert release_split(Path("my_bank/questions.jsonl")) is None
    assert release_language(Path("Benchmarks/test/xiezhi_inter_eng/xiezhi.v1.1.json")) == "en"
    assert release_language(Path("xiezhi_spec_chn.sample500.jsonl")) == "zh"
    assert release_language(Path("my_bank/questions.jsonl")) is None


def test_taxonomy_given_for_a_copy_away_from_the_release(release: Path, tmp_path: Path) -> None:
    alone = tmp_path / "elsewhere" / "bank.json"
    alone.parent.mkdir()
    alone.write_bytes((release / "Benchmarks" / "test" / "xiezhi_spec_chn" / "xiezhi.v1.1.json").read_bytes())
    assert {q.subject for q in load_questions(alone).questions} == {"未归类"}
    placed = load_questions(alone, taxonomy=release / "discipline_taxonomy").questions
    assert {q.subject for q in placed} == {"理学", "工学"}


def test_kg_stats_on_the_release_counts_test_and_train_apart(release: Path) -> None:
    result = CliRunner().invoke(app, ["kg", "stats", str(release), "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert stats["by_split"] == {"test": 30, "train": 6} and stats["evaluation_split"] == "test"
    assert stats["exemplar_split"] == "train" and stats["warnings"] == 0


@pytest.mark.shared_data
def test_the_shared_sample_laid_out_as_released(shared_data: Path, tmp_path: Path) -> None:
    knowledge = tmp_path / "Tasks" / "Knowledge"
    for split, name, source in (("test", "xiezhi_spec_chn", "xiezhi_spec_chn.sample500.jsonl"),
                                ("train", "xiezhi_train_chn", "xiezhi_train_chn.jsonl")):  # fmt: skip
        folder = knowledge / "Benchmarks" / split / name
        folder.mkdir(parents=True)
        (folder / "xiezhi.v1.1.json").symlink_to(shared_data / "xiezhi" / source)
    (knowledge / "discipline_taxonomy").symlink_to(shared_data / "xiezhi" / "discipline_taxonomy")
    questions = load_questions(knowledge).questions
    assert Counter(q.split for q in questions) == {"test": 500, "train": 2478}
    assert "未归类" not in {q.subject for q in questions} and len({q.id for q in questions}) == len(questions)
