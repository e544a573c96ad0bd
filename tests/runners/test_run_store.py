"""The run folder: append-only records, torn-line repair, resume checks, shards and merging."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.errors import InputError
from runners.records import RunHeader, RunRecord
from runners.store import RunStore, in_shard, merge_runs, parse_shard


def _header(**changes: object) -> RunHeader:
    base = {"model": "tiny", "backend": "transformers", "mode": "zero-shot", "sampling": {"temperature": 0.0}}
    return RunHeader.model_validate({**base, **changes})


def _record(qid: str, correct: bool = True) -> RunRecord:
    nodes = {"subject": "subject:数学", "level1": "l1:数学/数", "level2": "l2:数学/数/数", "question": f"q:{qid}"}
    return RunRecord(
        question_id=qid, nodes=nodes, subject="数学", type="single_choice", prompt="p", gold=["A"], correct=correct
    )


def test_records_are_appended_and_read_back(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    store.open(_header())
    assert store.append([_record("a"), _record("b", correct=False)]) == 2
    store.append([_record("c")])
    records = list(store.iter_records())
    assert [r.question_id for r in records] == ["a", "b", "c"]
    assert records[1].correct is False
    assert store.done_ids() == {"a", "b", "c"}


def test_torn_last_line_is_cut_and_complete_lines_are_kept_byte_for_byte(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    store.open(_header())
    store.append([_record("a"), _record("b")])
    intact = store.records_path.read_bytes()
    with store.records_path.open("ab") as handle:  # what a kill in the middle of a write leaves
        handle.write(b'{"version": 1, "question_id": "c", "nod')
    assert store.done_ids() == {"a", "b"}  # a torn line is not a record
    store.open(_header())  # resuming repairs the file
    assert store.records_path.read_bytes() == intact


def test_resume_refuses_a_different_run(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    store.open(_header())
    with pytest.raises(InputError, match="mode"):
        store.open(_header(mode="few-shot"))
    assert store.open(_header()).mode == "zero-shot"


def test_a_bad_record_line_names_file_line_and_field(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    store.open(_header())
    store.append([_record("a")])
    with store.records_path.open("a", encoding="utf-8") as handle:
        handle.write('{"version": 1, "question_id": "b"}\n')
    with pytest.raises(InputError, match=r"records.jsonl, line 2 \(record b\), field '\w+'"):
        store.done_ids()


def test_shards_partition_the_questions() -> None:
    ids = [f"q{i}" for i in range(500)]
    shards = [{q for q in ids if in_shard(q, (i, 3))} for i in range(3)]
    assert set.union(*shards) == set(ids)
    assert sum(len(s) for s in shards) == len(ids)
    assert all(100 < len(s) < 240 for s in shards)  # roughly balanced


@pytest.mark.parametrize("text", ["0/2", "3/2", "a/b", "1"])
def test_bad_shard_specs_are_refused(text: str) -> None:
    with pytest.raises(InputError):
        parse_shard(text)


def test_merge_joins_shards_and_drops_duplicates(tmp_path: Path) -> None:
    a, b = RunStore(tmp_path / "a"), RunStore(tmp_path / "b")
    a.open(_header(shard="1/2"))
    b.open(_header(shard="2/2"))
    a.append([_record("x"), _record("y")])
    b.append([_record("z"), _record("y")])
    written, dropped = merge_runs([a.root, b.root], tmp_path / "all")
    assert (written, dropped) == (3, 1)
    merged = RunStore(tmp_path / "all")
    assert sorted(merged.done_ids()) == ["x", "y", "z"]
    assert merged.read_header().shard is None
    # merging again adds nothing
    assert merge_runs([a.root, b.root], tmp_path / "all") == (0, 4)


def test_merge_refuses_runs_of_different_models(tmp_path: Path) -> None:
    RunStore(tmp_path / "a").open(_header())
    RunStore(tmp_path / "b").open(_header(model="other"))
    with pytest.raises(InputError, match="model"):
        merge_runs([tmp_path / "a", tmp_path / "b"], tmp_path / "all")


def test_records_give_the_last_record_of_each_id_in_first_seen_order(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    store.open(_header())
    store.append([_record("a", correct=False), _record("b")])
    store.append([_record("a")])  # a retry: the old record stays as history
    assert [(r.question_id, r.correct) for r in store.iter_records()] == [("a", False), ("b", True), ("a", True)]
    assert [(r.question_id, r.correct) for r in store.records()] == [("a", True), ("b", True)]
    assert [n for n, _ in store.numbered_records()] == [3, 2]


def test_a_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    store.open(_header())
    store.records_path.write_bytes(b'{"question_id": "\xff"}\n')
    with pytest.raises(InputError, match=r"records.jsonl, line 1: not UTF-8 text"):
        store.records()
