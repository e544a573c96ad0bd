"""One enormous line in a bank or a (compressed) replay file is refused by number, streaming (#27 item 10).

A ``.jsonl.gz`` that inflates to a gigabyte on one line took 409 s and 11 GB before ending in
``MemoryError``. Every line reader now reads at most the cap (``$K12EVAL_MAX_LINE_CHARS``) of a
line, skips the rest in chunks and names the line it refused. The cap is set small here, and
memory is measured with tracemalloc on a line 2,000 times the cap.
"""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.errors import InputError
from kg.importers import load_questions
from runners.backends.harness_files import jsonl_records
from tests.importer_helpers import ck12_record, write_jsonl

CAP = 10_000


@pytest.fixture(autouse=True)
def _small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K12EVAL_MAX_LINE_CHARS", str(CAP))


def _long(qid: str, chars: int) -> dict[str, object]:
    return ck12_record(id=qid, analysis="因为一次函数的图像是直线，" * (chars // 13 + 1))


def test_a_bank_line_over_the_cap_is_refused_by_number_and_the_others_kept(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "bank.jsonl", [ck12_record(id="a"), _long("long", 3 * CAP), ck12_record(id="b")])
    result = load_questions(data, skip_invalid=True)
    assert [q.id for q in result.questions] == ["a", "b"]
    assert [(p.path, p.line) for p in result.problems] == [(data, 2)]
    assert f"line longer than {CAP:,} characters" in str(result.problems[0])
    # a line just under the cap is a question like any other
    fits = write_jsonl(tmp_path / "fits.jsonl", [_long("fits", CAP - 2_000)])
    assert [q.id for q in load_questions(fits).questions] == ["fits"]


def test_the_cli_names_the_file_and_line_in_one_error_line(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "bank.jsonl", [ck12_record(id="a"), _long("long", 3 * CAP)])
    result = CliRunner().invoke(app, ["kg", "stats", str(data)])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        f"error: {data}, line 2: line longer than {CAP:,} characters; refused unread (cap: $K12EVAL_MAX_LINE_CHARS)"
    ]


def test_a_gzip_replay_line_inflating_far_past_the_cap_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "samples_cmmlu_2024-01-01T00-00-00.jsonl.gz"
    huge = 2_000 * CAP  # 20 M characters of Chinese (60 MB of UTF-8), from a ~100 kB gzip file
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"doc_id": 0, "resps": [["答"]]}) + "\n")
        handle.write('{"doc_id": 1, "resps": [["' + "答" * huge + '"]]}\n')
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as refused:
            list(jsonl_records(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(refused.value).startswith(f"{path}, line 2: line longer than {CAP:,} characters")
    assert peak < 16 * 2**20, f"peak {peak / 2**20:.0f} MiB"  # the line alone is 40 MiB as a str


def test_a_csv_row_over_the_cap_is_refused_by_its_line(tmp_path: Path) -> None:
    data = tmp_path / "bank.csv"
    rows = ["Question,A,B,C,D,Answer", "1+1=,1,2,3,4,B", "很长的题干" * CAP + ",1,2,3,4,B", "2+2=,1,2,3,4,D"]
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = load_questions(data, "cmmlu", skip_invalid=True)
    assert [q.stem for q in result.questions] == ["1+1=", "2+2="]
    assert [(p.path, p.line) for p in result.problems] == [(data, 3)]
    assert "line longer than" in str(result.problems[0])


def test_a_meta_eval_chain_file_line_over_the_cap_is_refused_by_number(tmp_path: Path) -> None:
    from reasoning_metrics.metaeval.data import load_solutions

    data = tmp_path / "chains.jsonl"
    good = {"id": "a", "problem": "1+1=?", "steps": ["1+1=2"], "label": -1}
    long = {**good, "id": "b", "steps": ["因为" * CAP]}
    data.write_text(json.dumps(good, ensure_ascii=False) + "\n" + json.dumps(long, ensure_ascii=False) + "\n",
                    encoding="utf-8")  # fmt: skip
    with pytest.raises(InputError) as refused:
        load_solutions(data, "processbench")
    assert str(refused.value).startswith(f"{data}, line 2: line longer than {CAP:,} characters")
