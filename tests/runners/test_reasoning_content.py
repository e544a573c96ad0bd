"""Reasoning models over the OpenAI protocol (#17 item 4): ``reasoning_content`` is kept and scored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from reasoning_metrics.run_scoring import record_chain, run_chains
from runners.backends.openai import _parse_generation
from runners.records import RunRecord
from runners.store import RunStore
from runners.testing.openai_server import OpenAIServer
from tests._runs import question, write_bank
from tests.runners.test_run_results import CountingBackend

THINKING = "设 y=kx+b，k≠0 时是一次函数。\n选项 A 中 k=2，符合。"
ANSWER = "所以正确答案是：A"


def _run(bank: Path, out: Path, server: OpenAIServer) -> Any:
    args = ["run", str(bank), "-m", "r1", "-b", "openai", "-B", f"base_url={server.base_url}",
            "--mode", "zero-shot-cot", "-o", str(out)]  # fmt: skip
    return CliRunner().invoke(app, args)


def test_a_servers_reasoning_content_is_recorded_beside_the_answer_and_scored(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", [question("q0", "数学", "函数", "一次函数", stem="下列函数中是一次函数的是")])
    out = tmp_path / "run"
    with OpenAIServer(CountingBackend(ANSWER, reasoning=THINKING)) as server:  # type: ignore[arg-type]
        result = _run(bank, out, server)
    assert result.exit_code == 0, result.output
    [record] = RunStore(out).records()
    assert (record.output, record.reasoning) == (ANSWER, THINKING)
    assert (record.parse_status, record.extracted) == ("ok", ["A"])  # the answer is read from the output only
    [(_, chain)] = run_chains(out).chains
    assert chain.hypothesis == f"{THINKING}\n\n{ANSWER}"  # the steps score needs, then the stated answer


def test_a_server_without_reasoning_leaves_the_field_empty(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", [question("q0", "数学", "函数", "一次函数")])
    with OpenAIServer(CountingBackend(ANSWER)) as server:  # type: ignore[arg-type]
        assert _run(bank, tmp_path / "run", server).exit_code == 0
    [record] = RunStore(tmp_path / "run").records()
    assert record.reasoning is None and record_chain(record) == ANSWER


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"content": "A", "reasoning_content": "think"}, "think"),  # vLLM's reasoning parsers, DeepSeek
        ({"content": "A", "reasoning": "think"}, "think"),  # some other servers
        ({"content": "A", "reasoning_content": None, "reasoning": "r"}, "r"),
        ({"content": "A", "reasoning_content": "  "}, None),
        ({"content": "A", "reasoning_content": 3}, None),  # untrusted: not text, not kept
        ({"content": "A"}, None),
    ],
)
def test_the_chat_answers_reasoning_field(message: dict[str, Any], expected: str | None) -> None:
    answer = {"choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}]}
    result = _parse_generation("q", answer, chat=True)
    assert result.texts == ["A"] and result.reasoning == expected


def _record(output: str | None, reasoning: str | None) -> RunRecord:
    return RunRecord(question_id="q", nodes={}, subject="s", type="single_choice", prompt="p", gold=["A"],
                     output=output, reasoning=reasoning)  # fmt: skip


def test_the_chain_of_a_record() -> None:
    assert record_chain(_record("答案 A", "第一步。")) == "第一步。\n\n答案 A"
    assert record_chain(_record("", "只有思考。")) == "只有思考。"  # cut off while thinking: still a chain
    assert record_chain(_record(None, None)) == ""
