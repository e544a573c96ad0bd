"""The replay backend on fixture files written here (CK12-style results and run records)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg.errors import InputError
from runners.backends.base import GenerationRequest, LoglikelihoodRequest
from runners.backends.replay import ReplayBackend
from runners.records import RECORDS_FILE, RunRecord
from tests.importer_helpers import ck12_record, write_jsonl


def _requests(*ids: str) -> list[GenerationRequest]:
    return [GenerationRequest(i, "ignored") for i in ids]


def test_ck12_result_file_is_replayed_by_id(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "results.jsonl",
        [ck12_record(id="a1", response="答案：B"), ck12_record(id="b2", response=["A", "B"])],
    )
    backend = ReplayBackend(str(path))
    a, missing, b = backend.generate(_requests("a1", "zz", "b2"))
    assert (a.id, a.texts, a.error) == ("a1", ["答案：B"], None)
    assert b.texts == ["A", "B"] and b.finish_reasons == ["replay", "replay"]
    assert missing.id == "zz" and missing.texts == []
    assert missing.error is not None and "'zz'" in missing.error and "results.jsonl" in missing.error


def test_run_records_are_replayed_with_their_counts_and_errors(tmp_path: Path) -> None:
    common: dict[str, Any] = {
        "nodes": {"subject": "subject:数学"},
        "subject": "数学",
        "type": "single_choice",
        "gold": ["B"],
    }
    ok = RunRecord(question_id="q1", prompt="p", output="B", prompt_tokens=12, completion_tokens=3, **common)
    sampled = RunRecord(question_id="q2", prompt="p", output="A", outputs=["A", "C"], **common)
    failed = RunRecord(question_id="q3", prompt="p", output=None, error="HTTP 500", parse_status="failed", **common)
    run = tmp_path / "run"
    run.mkdir()
    write_jsonl(run / RECORDS_FILE, [r.model_dump(mode="json") for r in (ok, sampled, failed)])
    backend = ReplayBackend("some-model", path=str(run))
    assert backend.model == "some-model" and backend.path == run / RECORDS_FILE
    r1, r2, r3 = backend.generate(_requests("q1", "q2", "q3"))
    assert (r1.texts, r1.prompt_tokens, r1.completion_tokens) == (["B"], 12, 3)
    assert r2.texts == ["A", "C"]
    assert r3.texts == [] and r3.error == "HTTP 500"


def test_a_later_line_replaces_an_earlier_one(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", [{"id": "x", "response": "old"}, {"id": "x", "response": "new"}])
    assert ReplayBackend(str(path)).generate(_requests("x"))[0].texts == ["new"]


def test_null_response_is_an_error_but_empty_text_is_an_answer(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", [{"id": "n", "response": None}, {"id": "e", "response": ""}])
    null, empty = ReplayBackend(str(path)).generate(_requests("n", "e"))
    assert null.error == "response is null"
    assert empty.error is None and empty.texts == [""]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (['{"id": "a", "response": "x"}', "{not json"], r"r\.jsonl, line 2: not valid JSON"),
        ([{"id": "a"}], r"line 1 \(record a\), field 'response': missing"),
        ([{"response": "x"}], r"line 1, field 'id': missing"),
        ([{"id": "a", "response": 3}], r"field 'response': expected text or a list of texts, got the number 3"),
        ([{"question_id": "q"}], r"field 'output': neither output nor error recorded"),
    ],
)
def test_bad_lines_name_the_file_line_and_field(tmp_path: Path, rows: list[Any], message: str) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", rows)
    with pytest.raises(InputError, match=message):
        ReplayBackend(str(path))


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        ReplayBackend(str(tmp_path / "absent.jsonl"))


def test_loglikelihood_is_an_error_per_request(tmp_path: Path) -> None:
    backend = ReplayBackend(str(write_jsonl(tmp_path / "r.jsonl", [{"id": "a", "response": "x"}])))
    results = backend.loglikelihood(
        [LoglikelihoodRequest("a", "p", ("A", "B")), LoglikelihoodRequest("b", "p", ("C",))]
    )
    assert [r.id for r in results] == ["a", "b"]
    assert all(r.error and "no log-probabilities" in r.error and r.logprobs == [] for r in results)


def test_count_tokens_estimates_without_a_tokenizer(tmp_path: Path) -> None:
    backend = ReplayBackend(str(write_jsonl(tmp_path / "r.jsonl", [{"id": "a", "response": "x"}])))
    assert backend.count_tokens("一次函数") == 4


@pytest.mark.real_model
def test_count_tokens_with_a_tokenizer(tmp_path: Path, tiny_model_dir: Path, tiny_backend: Any) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", [{"id": "a", "response": "x"}])
    backend = ReplayBackend(str(path), tokenizer=str(tiny_model_dir))
    assert backend.count_tokens("一次函数的图像") == tiny_backend.count_tokens("一次函数的图像")
