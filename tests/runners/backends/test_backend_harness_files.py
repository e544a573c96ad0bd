"""Other harnesses' outputs as their users keep them: gzip-compressed lm-eval samples, OpenCompass JSON Lines.

- lm-eval's ``--log_samples`` writes ``samples_<task>_<date>.jsonl`` (one JSON object a line,
  appended by ``EvaluationTracker.save_results_samples``); users compress them to
  ``.jsonl.gz`` to keep or share them.
- OpenCompass's ``GenInferencer`` and ``ChatInferencer`` append their results as they go to
  ``predictions/<model>/tmp_<dataset>.jsonl``, one ``{"idx": "0", "origin_prompt": ...,
  "prediction": ..., "gold": ...}`` a line (``GenInferencerOutputHandler.write_to_jsonl``),
  and only at the end write ``<dataset>.json`` and delete the tmp file: an interrupted
  OpenCompass run leaves only the JSON Lines.

Every file is written here in those layouts, with the invented questions of test_backend_harness.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from kg.errors import InputError
from runners.backends.base import GenerationRequest, LoglikelihoodRequest
from runners.backends.replay import ReplayBackend
from tests.importer_helpers import write_text
from tests.runners.backends.test_backend_harness import (
    CMMLU,
    DATE,
    cmmlu_bank,
    lm_eval_line,
    loglikelihoods,
    prompt_of,
    records_of,
    run_cli,
)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))


def write_gzip(path: Path, lines: list[dict[str, Any]]) -> Path:
    """``lines`` as JSON Lines, gzip-compressed (what ``gzip samples_*.jsonl`` leaves)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path


def oc_line(idx: int, prediction: str, gold: str = "A") -> dict[str, Any]:
    """One line of OpenCompass's ``tmp_<dataset>.jsonl``: the key as ``idx``, then the record."""
    rendered = prompt_of(CMMLU[idx])  # OpenCompass's CMMLU prompt renders the question and its options
    return {"idx": str(idx), "origin_prompt": [{"role": "HUMAN", "prompt": rendered}], "prediction": prediction,
            "gold": gold}  # fmt: skip


def test_a_gzipped_lm_eval_samples_file_runs_like_the_plain_one(tmp_path: Path) -> None:
    bank = cmmlu_bank(tmp_path)
    lines = [lm_eval_line(i, item, [[text]], "cmmlu") for i, (item, text) in enumerate(zip(CMMLU, "ADB", strict=True))]
    folder = tmp_path / "lm" / "my__model"
    write_gzip(folder / f"samples_cmmlu_agronomy_{DATE}.jsonl.gz", lines)
    run = tmp_path / "run"
    result = run_cli("run", str(bank), "-b", "replay", "-m", "lm", "-B", f"path={tmp_path / 'lm'}", "-o", str(run))
    assert result.exit_code == 0, result.output
    records = records_of(run)
    assert [records[f"cmmlu/test/agronomy/{i}"]["extracted"] for i in range(3)] == [["A"], ["D"], ["B"]]
    assert [records[f"cmmlu/test/agronomy/{i}"]["correct"] for i in range(3)] == [True, False, True]  # gold A, C, B


def test_a_gzipped_loglikelihood_file_given_alone_is_detected(tmp_path: Path) -> None:
    lines = [lm_eval_line(i, item, loglikelihoods("ABC"[i]), "cmmlu") for i, item in enumerate(CMMLU)]
    samples = write_gzip(tmp_path / f"samples_cmmlu_agronomy_{DATE}.jsonl.gz", lines)
    backend = ReplayBackend(str(samples))
    assert backend.format == "lm-eval"
    request = LoglikelihoodRequest("cmmlu/test/agronomy/1", prompt_of(CMMLU[1]), ("a", "b", "c", "d"))
    assert backend.loglikelihood([request])[0].logprobs == [-2.0, -0.5, -4.0, -5.0]


def test_a_plain_and_a_gzipped_file_of_one_task_are_two_runs(tmp_path: Path) -> None:
    line = lm_eval_line(0, CMMLU[0], [["A"]], "cmmlu")
    write_gzip(tmp_path / "out" / f"samples_cmmlu_agronomy_{DATE}.jsonl.gz", [line])
    write_text(tmp_path / "out" / f"samples_cmmlu_agronomy_{DATE}.jsonl", json.dumps(line) + "\n")
    with pytest.raises(InputError, match=r"a second samples file of task 'cmmlu_agronomy'"):
        ReplayBackend(str(tmp_path / "out"))


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda data: data[: len(data) // 2], "truncated or corrupt"),  # a download cut short
        (lambda data: b"PK\x03\x04" + data[4:], "truncated or corrupt"),  # not gzip at all
        (lambda data: data[:-8] + bytes(b ^ 0xFF for b in data[-8:-4]) + data[-4:], "CRC check failed"),  # bit rot
    ],
    ids=["truncated", "not-gzip", "corrupt"],
)
def test_a_bad_gzip_file_is_one_line_naming_it(tmp_path: Path, damage: Any, says: str) -> None:
    bank = cmmlu_bank(tmp_path)
    lines = [lm_eval_line(i, item, [["答案：A" * 50]], "cmmlu") for i, item in enumerate(CMMLU)]
    samples = write_gzip(tmp_path / f"samples_cmmlu_agronomy_{DATE}.jsonl.gz", lines)
    samples.write_bytes(damage(samples.read_bytes()))
    for given in (["-B", f"path={samples}", "-B", "format=lm-eval"], ["-B", f"path={samples}"]):
        result = run_cli("run", str(bank), "-b", "replay", "-m", "lm", *given, "-o", str(tmp_path / "run"))
        assert result.exit_code == 2, result.output
        (line,) = result.output.strip().splitlines()
        assert line.startswith(f"error: {samples}: ") and says in line, line
        assert "Traceback" not in result.output


def test_an_interrupted_opencompass_run_replays_from_its_jsonl(tmp_path: Path) -> None:
    bank = cmmlu_bank(tmp_path)
    folder = tmp_path / "outputs" / "default" / "20240501_100000" / "predictions" / "my-model"
    lines = [oc_line(0, "答案是 A"), oc_line(1, "D", "C")]  # the third question was not reached
    write_text(folder / "tmp_cmmlu-agronomy.jsonl", "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    run = tmp_path / "run"
    result = run_cli("run", str(bank), "-b", "replay", "-m", "oc", "-B", f"path={folder}", "-o", str(run),
                     "--max-failures", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    records = records_of(run)
    assert [records[f"cmmlu/test/agronomy/{i}"]["correct"] for i in range(2)] == [True, False]
    assert records["cmmlu/test/agronomy/2"]["parse_status"] == "failed"  # no answer recorded: not a guess
    given_alone = ReplayBackend(str(folder / "tmp_cmmlu-agronomy.jsonl"))
    assert given_alone.format == "opencompass"
    assert given_alone.generate([GenerationRequest("cmmlu/test/agronomy/1", "q")])[0].texts == ["D"]


def test_opencompass_jsonl_repeats_take_the_last_and_the_finished_json_wins(tmp_path: Path) -> None:
    folder = tmp_path / "predictions" / "m"
    lines = [oc_line(0, "甲"), oc_line(1, "乙"), oc_line(0, "丙")]  # a resumed OpenCompass run appends again
    write_text(folder / "tmp_cmmlu-agronomy.jsonl", "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    requests = [GenerationRequest(f"cmmlu/test/agronomy/{i}", "q") for i in range(2)]
    assert [r.texts for r in ReplayBackend(str(folder)).generate(requests)] == [["丙"], ["乙"]]
    finished = {"0": {"prediction": "丁"}, "1": {"prediction": "戊"}}
    write_text(folder / "cmmlu-agronomy.json", json.dumps(finished, ensure_ascii=False))
    assert [r.texts for r in ReplayBackend(str(folder)).generate(requests)] == [["丁"], ["戊"]]


def test_opencompass_jsonl_shards_continue_positions(tmp_path: Path) -> None:
    folder = tmp_path / "predictions" / "m"
    write_text(folder / "cmmlu-agronomy_0.json", json.dumps({"0": {"prediction": "甲"}, "1": {"prediction": "乙"}}))
    write_text(folder / "tmp_cmmlu-agronomy_1.jsonl", json.dumps({"idx": "0", "prediction": "丙"}) + "\n")
    requests = [GenerationRequest(f"cmmlu/test/agronomy/{i}", "q") for i in range(3)]
    assert [r.texts for r in ReplayBackend(str(folder)).generate(requests)] == [["甲"], ["乙"], ["丙"]]


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"prediction": "A"}, "idx"),
        ({"idx": "x", "prediction": "A"}, "idx"),
        ({"idx": "1", "prediction": 3}, "prediction"),
    ],
)
def test_bad_opencompass_jsonl_lines_name_line_and_field(tmp_path: Path, line: dict[str, Any], field: str) -> None:
    file = write_text(
        tmp_path / "tmp_cmmlu-agronomy.jsonl", json.dumps(oc_line(0, "A")) + "\n" + json.dumps(line) + "\n"
    )
    with pytest.raises(InputError, match=rf"^{file}, line 2.*'{field}'"):
        ReplayBackend(str(file), format="opencompass")


def test_an_unfinished_shard_before_others_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "predictions" / "m"
    write_text(folder / "tmp_cmmlu-agronomy_0.jsonl", json.dumps({"idx": "0", "prediction": "甲"}) + "\n")
    write_text(folder / "cmmlu-agronomy_1.json", json.dumps({"0": {"prediction": "丙"}}))
    with pytest.raises(InputError, match=r"tmp_cmmlu-agronomy_0.jsonl: shard 0 of cmmlu-agronomy is unfinished"):
        ReplayBackend(str(folder))
