"""C-Eval and CMMLU as the model hub's tools leave them on disk: the right subjects and ids, or one clear line (#27 item 6).

The ``save_to_disk`` folders beside this file were written by the real ``datasets`` library
(see README.md); the other layouts are written here with pyarrow, as the hub names them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.errors import InputError
from kg.importers import detect_format, load_questions
from tests.kg.test_importers_parquet import ceval_columns, cmmlu_columns, write_parquet

HERE = Path(__file__).parent
HASHES = ["0a1b2c3d4e5f6a7b", "d09d88a7419f2427", "3175b48e9b496418"]


def _ids(path: Path, fmt: str | None = None) -> list[str]:
    return sorted(q.id for q in load_questions(path, fmt).questions)


def test_hashed_shards_give_three_subjects_with_ids_from_their_rows(tmp_path: Path) -> None:
    subjects = ["computer_network", "operating_system", "college_physics"]
    for subject, digest in zip(subjects, HASHES, strict=True):
        write_parquet(tmp_path / subject / f"val-00000-of-00001-{digest}.parquet", ceval_columns())
        write_parquet(tmp_path / subject / f"dev-00000-of-00001-{digest[::-1]}.parquet", ceval_columns(id=[7, 8]))
    assert detect_format(tmp_path) == "ceval"
    questions = load_questions(tmp_path).questions
    assert sorted({q.subject for q in questions}) == sorted(["计算机网络", "操作系统", "大学物理"])
    assert _ids(tmp_path) == sorted(f"ceval/{split}/{s}/{i}" for s in subjects for split, i in
                                    [("dev", 7), ("dev", 8), ("val", 0), ("val", 1)])  # fmt: skip


def test_the_parquet_converter_root_is_detected(tmp_path: Path) -> None:
    write_parquet(tmp_path / "agronomy" / "test" / "0000.parquet", cmmlu_columns())
    write_parquet(tmp_path / "agronomy" / "dev" / "0000.parquet", cmmlu_columns())
    write_parquet(tmp_path / "anatomy" / "test" / "0000.parquet", cmmlu_columns())
    assert detect_format(tmp_path) == "cmmlu"
    questions = load_questions(tmp_path).questions
    assert sorted({(q.subject, q.extra["split"]) for q in questions}) == [("农学", "dev"), ("农学", "test"),
                                                                           ("解剖学", "test")]  # fmt: skip
    assert len(questions) == 6


def test_a_datasetdict_save_to_disk_folder_reads_its_splits_and_subject() -> None:
    root = HERE / "ceval_save_to_disk"
    assert detect_format(root) == "ceval"
    assert _ids(root) == ["ceval/dev/computer_network/7", "ceval/dev/computer_network/8",
                          "ceval/val/computer_network/0", "ceval/val/computer_network/1"]  # fmt: skip
    first = next(q for q in load_questions(root).questions if q.id == "ceval/val/computer_network/0")
    assert first.subject == "计算机网络" and first.answer == ["A"] and first.analysis == "IP 在网络层"


def test_a_single_split_save_to_disk_folder_takes_its_subject_from_dataset_info() -> None:
    folder = HERE / "cmmlu_save_to_disk" / "agronomy_test"  # the folder's name is not the subject
    assert detect_format(folder) == "cmmlu"
    questions = load_questions(folder).questions
    assert [q.id for q in questions] == [f"cmmlu/test/agronomy/{i}" for i in range(3)]
    assert {q.subject for q in questions} == {"农学"}


LFS = "version https://git-lfs.github.com/spec/v1\noid sha256:{}\nsize 20311\n".format("ab" * 32)


def _cli_error(path: Path) -> str:
    result = CliRunner().invoke(app, ["kg", "stats", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.mark.parametrize("where", ["computer_network/val-00000-of-00001.parquet", "agronomy/test/0000.parquet"])
def test_a_git_lfs_pointer_says_so_and_what_to_do(tmp_path: Path, where: str) -> None:
    pointer = tmp_path / where
    pointer.parent.mkdir(parents=True)
    pointer.write_text(LFS, encoding="ascii")
    for path in (tmp_path, pointer):
        line = _cli_error(path)
        assert line.startswith(f"error: {pointer}: a Git LFS pointer file, not the Parquet data"), line
        assert "git lfs pull" in line


def test_a_truncated_parquet_file_is_named_as_such_not_an_unknown_format(tmp_path: Path) -> None:
    good = write_parquet(tmp_path / "computer_network" / "val-00000-of-00001.parquet", ceval_columns())
    data = good.read_bytes()
    good.write_bytes(data[: len(data) // 2])
    line = _cli_error(tmp_path)
    assert line.startswith(f"error: {good}: not a readable Parquet file, truncated or corrupt ("), line
    with pytest.raises(InputError, match="truncated or corrupt"):
        load_questions(good, "ceval")


def test_an_empty_jsonl_bank_is_recognised_without_format(tmp_path: Path) -> None:
    empty = tmp_path / "bank.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    result = load_questions(empty)
    assert result.format == "ck12" and result.questions == [] and result.problems == []
