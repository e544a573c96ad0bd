"""``k12eval run`` over a real HTTP server (the OpenAI-protocol test server on 127.0.0.1) on the bundled Chinese
sample: every figure the run prints is what ``records.jsonl`` holds, and a server error at a request the test
chooses (HTTP 500, a dropped connection, a request never answered) is a failed question, in no accuracy, named with
its request and URL, and asked again by ``--retry-failed``.

Before: a type whose every request failed printed ``unparsed 0.0%`` (none was answered: there is no rate), and a
failed request's error said ``HTTP 500: ... (gave up after 2 attempts)``, naming neither the request nor where it
was sent; the closing warning named no question.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.records import RunRecord
from runners.store import RunStore
from runners.testing.openai_server import Faults, OpenAIServer
from tests.scripted import ScriptedBackend, prompt_text

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
FAILING = {
    "5acba49476e34203851705f8b66e7c9b": ("方程$$2(x-3)", "HTTP 500"),
    "108fccd172bb4486bad043172bcae652": ("斜边", "RemoteProtocolError"),
    "2443090a4ecc43e6812c9cafb7487a8c": ("结果不正确", "ReadTimeout"),
}
"""The questions whose requests the server fails at every attempt: a marker of their stem, and the error."""
MARKERS = [marker for marker, _ in FAILING.values()]


def _answer(request: Any) -> str:
    text = prompt_text(request)
    return "我不知道" if "jacket" in text else "正确答案是：B"  # the first unparsed, the others B (right or wrong)


def _run(base_url: str, out: Path, *more: str, model: str = "scripted", timeout_s: float = 5) -> str:
    """``k12eval run`` of the sample's 8 math questions; ``timeout_s``: how long each attempt waits for its answer.

    A request the server never answers fails by this timeout whatever the machine's speed; 5 s is only the bound
    within which the scripted model's answers, given at once, must arrive on a busy machine (the test asserts no
    duration)."""
    args = ["run", str(SAMPLE), "-s", "数学", "-t", "single_choice", "-t", "fill_in_blank", "-b", "openai",
            "-m", model, "-B", f"base_url={base_url}", "-B", f"timeout_s={timeout_s}", "-B", "max_retries=1",
            "-B", "backoff_s=0", "--max-failures", "3", "-o", str(out), *more]  # fmt: skip
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def _table(printed: str) -> dict[str, list[str]]:
    """The printed table's rows by type: n, asked, accuracy, unparsed, failed, as printed."""
    rows = {}
    for line in printed.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 6 and cells[1].isdigit():
            rows[cells[0]] = cells[1:]
    return rows


def _expected(records: list[RunRecord]) -> dict[str, list[str]]:
    """The table recomputed from the records (the last per question), independently of the summary code."""
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for record in records:
        groups[record.type].append(record)
        groups["all"].append(record)
    rows = {}
    for name, group in groups.items():
        asked = [r for r in group if r.parse_status in ("ok", "unparsed")]
        right = sum(r.correct is True for r in asked)
        unparsed = sum(r.parse_status == "unparsed" for r in asked)
        rows[name] = [
            str(len(group)),
            str(len(asked)),
            f"{right / len(asked):.1%}" if asked else "—",
            f"{unparsed / len(asked):.1%}" if asked else "—",
            str(sum(r.parse_status == "failed" for r in group)),
        ]
    return rows


def _check_figures(printed: str, out: Path) -> list[RunRecord]:
    records = RunStore(out).records()  # the last record per question
    assert _table(printed) == _expected(records)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    asked = [r for r in records if r.parse_status in ("ok", "unparsed")]
    assert f"accuracy over the {len(asked)} question(s) asked of {len(records)} selected" in printed
    assert summary["all"]["correct"] == sum(r.correct is True for r in asked)
    assert summary["failures"] == sum(r.parse_status == "failed" for r in records)
    assert summary["prompt_tokens"] == sum(r.prompt_tokens or 0 for r in records)
    assert summary["completion_tokens"] == sum(r.completion_tokens or 0 for r in records)
    unparsed = sum(r.parse_status == "unparsed" for r in asked)
    assert f"unparsed rate {unparsed / len(asked):.1%}" in printed
    return records


def test_printed_figures_are_the_records_and_a_server_error_is_failed_then_asked_again(tmp_path: Path) -> None:
    out = tmp_path / "run"
    faults = Faults(fail_marker=MARKERS[0], drop_marker=MARKERS[1], hang_marker=MARKERS[2])
    with OpenAIServer(ScriptedBackend(_answer), faults) as server:  # type: ignore[arg-type]
        printed = _run(server.base_url, out)
        records = _check_figures(printed, out)
        failed = {r.question_id: r for r in records if r.parse_status == "failed"}
        assert sorted(failed) == sorted(FAILING)
        url = f"{server.base_url}/chat/completions"
        for qid, (_, error) in FAILING.items():
            said = failed[qid].error or ""
            assert failed[qid].correct is None and error in said, said  # failed, never wrong
            assert f"request {qid}, POST {url}" in said and "gave up after 2 attempts" in said, said
        warning = next(line for line in printed.splitlines() if line.startswith("warning: 3 of 8 question(s) failed"))
        first = next(r for r in RunStore(out).records() if r.parse_status == "failed")
        assert f"e.g. {first.question_id}: {first.error}" in warning and "--retry-failed" in warning
        assert "│ —" not in printed.split("single_choice")[1].split("\n")[0]  # some single choice were answered
        assert "5 new answer(s) and 3 failed request(s) this time, 0 already" in printed  # a failure is no answer

        server.faults = Faults()  # the server is well again
        again = _run(server.base_url, out, "--retry-failed")
    records = _check_figures(again, out)
    assert all(r.parse_status != "failed" for r in records) and len(records) == 8
    assert "3 new answer(s) this time, 5 already in the run folder" in again
    history = [json.loads(line) for line in (out / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [h["question_id"] for h in history if h["parse_status"] == "failed"] == list(
        {r["question_id"]: None for r in history if r["parse_status"] == "failed"}
    )  # each failed once, kept as history; the retried answers come after
    assert len(history) == 11


def test_a_type_none_of_whose_requests_was_answered_prints_no_unparsed_rate(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with OpenAIServer(ScriptedBackend(_answer), Faults(fail_marker="填空题")) as server:  # type: ignore[arg-type]
        printed = _run(server.base_url, out)
    rows = _table(printed)
    assert rows["fill_in_blank"] == ["3", "0", "—", "—", "3"], printed
    assert rows == _expected(RunStore(out).records())
    assert re.search(r"fill_in_blank.*0\.0%", printed) is None
