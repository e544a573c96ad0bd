"""C-Eval and CMMLU as the model hub ships them: one Parquet file per subject and split.

The files are written here with pyarrow (invented questions); the same importers read them,
with the same error rules: a bad row is a Problem naming the file, the row and the column.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg.errors import InputError
from kg.importers import detect_format, load_questions
from tests.importer_helpers import single_problem

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def write_parquet(path: Path, columns: dict[str, list[Any]]) -> Path:
    """A Parquet file with these columns (pyarrow infers the types, as ``datasets`` would write them)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(columns), path)
    return path


def ceval_columns(**changes: list[Any]) -> dict[str, list[Any]]:
    columns: dict[str, list[Any]] = {
        "id": [0, 1],
        "question": ["网络层的协议是____", "TCP 属于____"],
        "A": ["IP", "应用层"],
        "B": ["HTTP", "传输层"],
        "C": ["FTP", "网络层"],
        "D": ["SMTP", "物理层"],
        "answer": ["A", "B"],
        "explanation": ["IP 在网络层", ""],
    }
    columns.update(changes)
    return columns


def cmmlu_columns(**changes: list[Any]) -> dict[str, list[Any]]:
    columns: dict[str, list[Any]] = {
        "Question": ["水稻属于____", "小麦的播种季节多为____"],
        "A": ["禾本科", "春季"],
        "B": ["豆科", "夏季"],
        "C": ["茄科", "秋季"],
        "D": ["十字花科", "冬季"],
        "Answer": ["A", "C"],
    }
    columns.update(changes)
    return columns


def test_ceval_hub_layout_reads_like_the_csv_release(tmp_path: Path) -> None:
    write_parquet(tmp_path / "computer_network" / "val-00000-of-00001.parquet", ceval_columns())
    write_parquet(tmp_path / "computer_network" / "dev-00000-of-00001.parquet", ceval_columns(id=[7, 8]))
    empty = {"answer": ["", ""], "explanation": ["", ""]}
    write_parquet(tmp_path / "computer_network" / "test-00000-of-00001.parquet", ceval_columns(**empty))
    assert detect_format(tmp_path) == "ceval"
    questions = {q.id: q for q in load_questions(tmp_path).questions}
    assert sorted(questions) == [
        "ceval/dev/computer_network/7",
        "ceval/dev/computer_network/8",
        "ceval/val/computer_network/0",
        "ceval/val/computer_network/1",
    ]
    first = questions["ceval/val/computer_network/0"]
    assert first.subject == "计算机网络" and first.answer == ["A"] and first.analysis == "IP 在网络层"
    assert [o.text for o in first.options] == ["IP", "HTTP", "FTP", "SMTP"]
    assert first.extra["split"] == "val"


def test_cmmlu_hub_layouts_read_like_the_csv_release(tmp_path: Path) -> None:
    write_parquet(tmp_path / "agronomy" / "test-00000-of-00001.parquet", cmmlu_columns())
    write_parquet(tmp_path / "anatomy" / "test" / "0000.parquet", cmmlu_columns())
    assert detect_format(tmp_path) == "cmmlu"
    questions = {q.id: q for q in load_questions(tmp_path).questions}
    assert sorted(questions) == [
        "cmmlu/test/agronomy/0",
        "cmmlu/test/agronomy/1",
        "cmmlu/test/anatomy/0",
        "cmmlu/test/anatomy/1",
    ]
    assert questions["cmmlu/test/agronomy/1"].answer == ["C"] and questions["cmmlu/test/agronomy/1"].subject == "农学"


def test_a_single_parquet_file_is_detected_and_read(tmp_path: Path) -> None:
    file = write_parquet(tmp_path / "agronomy" / "dev-00000-of-00001.parquet", cmmlu_columns())
    assert detect_format(file) == "cmmlu"
    assert [q.id for q in load_questions(file).questions] == ["cmmlu/dev/agronomy/0", "cmmlu/dev/agronomy/1"]


def test_parquet_named_as_released_in_a_split_folder(tmp_path: Path) -> None:
    write_parquet(tmp_path / "val" / "computer_network_val.parquet", ceval_columns())
    assert [q.id for q in load_questions(tmp_path, "ceval").questions][:1] == ["ceval/val/computer_network/0"]


@pytest.mark.parametrize(
    ("changes", "row", "column", "words"),
    [
        ({"answer": ["A", "E"]}, 2, "answer", "expected one option letter"),
        ({"question": ["题", None]}, 2, "question", "empty question text"),
        ({"answer": [["A"], ["B"]]}, 1, "answer", "expected text or a number, got a list"),
        ({"id": [True, False]}, 1, "id", "got true"),
    ],
)
def test_a_bad_row_names_file_row_and_column(
    tmp_path: Path, changes: dict[str, list[Any]], row: int, column: str, words: str
) -> None:
    file = write_parquet(tmp_path / "computer_network" / "val-00000-of-00001.parquet", ceval_columns(**changes))
    with pytest.raises(InputError) as stopped:
        load_questions(file, "ceval")
    problem = load_questions(file, "ceval", skip_invalid=True).problems[0]
    assert str(stopped.value) == str(problem)
    assert (problem.path, problem.line, problem.field) == (file, row, column)
    assert f", row {row}" in str(problem) and words in str(problem)


def test_a_missing_column_is_named(tmp_path: Path) -> None:
    columns = cmmlu_columns()
    del columns["D"]
    file = write_parquet(tmp_path / "agronomy" / "test-00000-of-00001.parquet", columns)
    problem = single_problem(file, "cmmlu")
    assert problem.field == "D" and "missing column(s) D" in str(problem)


def test_a_file_that_is_not_parquet_is_one_problem(tmp_path: Path) -> None:
    file = tmp_path / "agronomy" / "test-00000-of-00001.parquet"
    file.parent.mkdir()
    file.write_bytes(b"PAR1 not really")
    with pytest.raises(InputError, match=r"not a readable Parquet file"):
        load_questions(file, "cmmlu")


def test_importing_the_importers_does_not_load_pyarrow() -> None:
    import subprocess
    import sys

    code = "import sys, kg.importers.ceval, kg.importers.cmmlu; print('pyarrow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
