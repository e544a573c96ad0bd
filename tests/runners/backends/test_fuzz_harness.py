"""Hostile harness files as a fuzz suite (#28 Deliver 2, the harness part), through the real CLI.

A good lm-eval ``--log_samples`` file (generate_until or loglikelihood) or OpenCompass prediction
file (gen or PPL, ``.json`` or the ``tmp_`` JSON Lines) of a small CMMLU bank is spoiled in one of
many ways: a field removed or given a hostile value (wrong type, NaN, infinities, 1e400, a
5,000-digit number, a lone surrogate, deep nesting, megabytes of text), a key that is not a
position, a line cut or not UTF-8, the whole file gzipped, cut short or emptied.
The invariant: ``run`` ends in a result (exit 0, or 1 when some requests failed, each named) or in
one ``error:`` line naming the file (the last line of the output); never a traceback; and a run folder it leaves can always be
read back (the records, the same command resuming, ``report``). Examples are derandomized.
"""

from __future__ import annotations

import copy
import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from k12eval.cli import app
from runners.store import RunStore
from tests.runners.backends.test_backend_harness import CMMLU, DATE, cmmlu_bank, lm_eval_line, loglikelihoods

FUZZ = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
HOSTILE: list[Any] = [
    None,
    True,
    -1,
    2.5,
    float("nan"),
    float("inf"),
    float("-inf"),
    10**400,
    "",
    "A",
    "\ud83d",
    "答" * 200_000,
    [],
    [[]],
    [[[]]],
    {},
    {"x": [1]},
    [[["A"]]],
]
"""Values a field may be given (NaN and infinities are written as JSON writes them, 10**400 reads as inf)."""
NESTED = "[" * 5000 + "]" * 5000
LM_FIELDS = ["doc_id", "doc", "resps", "arguments", "task_name", "filtered_resps"]
OC_FIELDS = ["prediction", "origin_prompt", "gold", "label: A", "label: B"]
NUMBERS = ["NaN", "-Infinity", "Infinity", "1e400", "-" + "9" * 400, '"-0.5"', "true", "null", "[]"]
"""What a harness may write for a score."""
KEYS = ["²", "٣", "-1", "", " 1", "1.0", "9" * 5000, "0x1", "\ud83d"]


def _lm_eval_lines(loglikelihood: bool) -> list[dict[str, Any]]:
    if loglikelihood:
        return [lm_eval_line(i, item, loglikelihoods("A"), "cmmlu") for i, item in enumerate(CMMLU)]
    return [lm_eval_line(i, item, [[f"答案：{item[2]}"]], "cmmlu") for i, item in enumerate(CMMLU)]


def _opencompass(ppl: bool) -> dict[str, dict[str, Any]]:
    if ppl:
        return {str(i): {f"label: {x}": {"PPL": 1.0 + j} for j, x in enumerate("ABCD")} for i in range(len(CMMLU))}
    return {
        str(i): {"origin_prompt": [{"role": "HUMAN", "prompt": q}], "prediction": f"答案：{a}", "gold": a}
        for i, (q, _, a) in enumerate(CMMLU)
    }


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=True)
    except ValueError:  # 10**400 as a JSON number: written by hand, as a harness may
        return json.dumps(value, default=str)


def _spoil(record: dict[str, Any], field: str, value: Any, drop: bool) -> str:
    """The record as one JSON text with ``field`` removed or set to ``value``."""
    spoiled = copy.deepcopy(record)
    if drop:
        spoiled.pop(field, None)
        return _dumps(spoiled)
    marker = "__HOSTILE__"
    spoiled[field] = marker
    text = json.dumps(spoiled, ensure_ascii=True)
    if value is NESTED:
        raw = NESTED
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**300:
        raw = str(value)
    else:
        raw = json.dumps(value, ensure_ascii=True)  # NaN, Infinity as Python writes them
    return text.replace(json.dumps(marker), raw, 1)


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback: {result.exception!r}") from result.exception
    return result.exit_code, result.output


def _check(bank: Path, replay: Path, out: Path, strategy: str) -> None:
    args = ("run", str(bank), "-b", "replay", "-m", "m", "-B", f"path={replay}", "--strategy", strategy, "-o", str(out))
    code, output = _invoke(*args)
    assert code in (0, 1, 2), output
    if code == 2:
        # one error line, last (a run stopped once its folder is open logs how far it got before it)
        errors = [line for line in output.strip().splitlines() if line.startswith("error: ")]
        assert len(errors) == 1 and output.strip().splitlines()[-1] == errors[0], output
        assert str(replay) in errors[0] or str(replay.parent) in errors[0], output
        assert "Traceback" not in output
    if not (out / "records.jsonl").exists():
        return
    records = RunStore(out).records()  # readable whatever was replayed
    assert all(r.error for r in records if r.parse_status == "failed")
    again, output = _invoke(*args)  # the resume reads the folder back
    assert again in (0, 1, 2), output
    report, output = _invoke("report", str(out), "--out", str(out.parent / "report"), "--no-plots")
    if records:
        assert report == 0, output
    else:  # stopped before its first batch was kept: the report says there is nothing to show, in one line
        assert report == 2 and output.strip().splitlines()[-1].startswith("error: no answered questions"), output


VALUES = st.sampled_from([*HOSTILE, NESTED])


@FUZZ
@given(
    loglikelihood=st.booleans(),
    line=st.integers(0, len(CMMLU) - 1),
    field=st.sampled_from(LM_FIELDS),
    value=VALUES,
    drop=st.booleans(),
    damage=st.sampled_from(["none", "score", "score", "cut", "bad byte", "not an object", "gzip", "gzip cut", "empty"]),
    number=st.sampled_from(NUMBERS),
)
@pytest.mark.slow
def test_hostile_lm_eval_files_give_a_result_or_one_located_line(
    loglikelihood: bool, line: int, field: str, value: Any, drop: bool, damage: str, number: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        bank = cmmlu_bank(tmp)
        lines = [_dumps(r) for r in _lm_eval_lines(loglikelihood)]
        lines[line] = _spoil(_lm_eval_lines(loglikelihood)[line], field, value, drop)
        if damage == "score":  # the record itself kept whole, one of its scores replaced
            lines[line] = _dumps(_lm_eval_lines(True)[line]).replace("-0.5", number, 1)
            loglikelihood = True
        elif damage == "cut":
            lines[line] = lines[line][: len(lines[line]) // 2]
        elif damage == "not an object":
            lines[line] = "[1, 2]"
        data = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
        if damage == "bad byte":
            data = data.replace(b'"doc_id"', b'"doc_\xff"', 1)
        elif damage == "empty":
            data = b""
        name = f"samples_cmmlu_agronomy_{DATE}.jsonl"
        if damage.startswith("gzip"):
            data = gzip.compress(data)
            data = data[: len(data) // 2] if damage == "gzip cut" else data
            name += ".gz"
        replay = tmp / "lm" / name
        replay.parent.mkdir()
        replay.write_bytes(data)
        _check(bank, replay, tmp / "run", "rank-options" if loglikelihood else "generate")


@FUZZ
@given(
    ppl=st.booleans(),
    key=st.sampled_from(["0", "1", "2"]),
    field=st.sampled_from(OC_FIELDS),
    value=VALUES,
    drop=st.booleans(),
    damage=st.sampled_from(["none", "score", "score", "bad key", "cut", "not an object", "jsonl", "shard", "list"]),
    bad_key=st.sampled_from(KEYS),
    number=st.sampled_from(NUMBERS),
)
@pytest.mark.slow
def test_hostile_opencompass_files_give_a_result_or_one_located_line(
    ppl: bool, key: str, field: str, value: Any, drop: bool, damage: str, bad_key: str, number: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        bank = cmmlu_bank(tmp)
        records = _opencompass(ppl)
        texts = {k: _dumps(v) for k, v in records.items()}
        texts[key] = _spoil(records[key], field, value, drop)
        if damage == "score":  # a PPL record kept whole, one of its scores replaced
            ppl, records = True, _opencompass(True)
            texts = {k: _dumps(v) for k, v in records.items()}
            texts[key] = texts[key].replace('"PPL": 2.0', f'"PPL": {number}', 1)
        elif damage == "bad key":
            texts[bad_key] = texts.pop(key)
        folder_out = tmp / "predictions" / "m"
        folder_out.mkdir(parents=True)
        if damage == "jsonl":
            body = "\n".join(f'{{"idx": {json.dumps(k)}, {t[1:]}' if t.startswith("{") else t for k, t in texts.items())
            replay = folder_out / "tmp_cmmlu-agronomy.jsonl"
            replay.write_bytes((body + "\n").encode("utf-8", "surrogatepass"))
        else:
            body = "{" + ", ".join(f"{json.dumps(k)}: {t}" for k, t in texts.items()) + "}"
            if damage == "cut":
                body = body[: len(body) // 2]
            elif damage == "not an object":
                body = body.replace(texts[key], "[1]", 1)
            elif damage == "list":
                body = "[" + ", ".join(texts.values()) + "]"
            name = "cmmlu-agronomy_1.json" if damage == "shard" else "cmmlu-agronomy.json"
            replay = folder_out / name
            replay.write_bytes(body.encode("utf-8", "surrogatepass"))
        _check(bank, folder_out, tmp / "run", "rank-options" if ppl else "generate")
