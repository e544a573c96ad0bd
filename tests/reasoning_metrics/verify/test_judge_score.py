"""``k12eval score --judge-model``: the judge's verdict on each Chinese chain, asked in Chinese over real HTTP,
named with its model in the score header, in each of its flags and on the report page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from reasoning_metrics.reasons import worded
from runners.backends.base import GenerationRequest
from runners.backends.transformers import TransformersBackend
from runners.testing.openai_server import OpenAIServer
from tests.reasoning_metrics.written_runs import write_bank, write_run
from tests.scripted import ScriptedBackend, prompt_text

runner = CliRunner()
pytestmark = [pytest.mark.real_model, pytest.mark.slow]  # MiniLM scores the chains


def _judge(request: GenerationRequest) -> str:
    """Names the second step of the apples chain, says nothing readable about the eggs chain."""
    text = prompt_text(request)
    return "第2步有错误。\\boxed{2}" if "苹果" in text else "我不确定。"


def _score_with_judge(tmp_path: Path, minilm_path: str, *extra: str) -> tuple[Path, ScriptedBackend, list[str]]:
    """A written run scored with the scripted judge behind the OpenAI-protocol server; the score arguments."""
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    judge = ScriptedBackend(_judge, model="qwen-judge")
    args = ["score", str(run), "--no-cache", "--embedder", minilm_path, "--nli", "none", "-m", "faithfulness_step"]
    with OpenAIServer(cast(TransformersBackend, judge)) as server:
        http = ["--judge-model", "qwen-judge", "--judge-backend", "openai", "-J", f"base_url={server.base_url}"]
        result = runner.invoke(app, [*args, *http, "-J", "api_key=t", *extra])
    assert result.exit_code == 0, result.output
    return run, judge, args


def test_score_asks_the_judge_in_chinese_and_names_it_on_every_verdict(tmp_path: Path, minilm_path: str) -> None:
    run, judge, args = _score_with_judge(tmp_path, minilm_path, "--judge-max-tokens", "64")
    asked = [prompt_text(r) for r in judge.requests]
    assert len(asked) == 2 and all("【题目】" in a and "第1步：" in a and "\\boxed{}" in a for a in asked)
    assert {r.params.max_tokens for r in judge.requests} == {64}
    header = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert "judge" in header["detectors"] and header["models"]["judge"]["zh"] == "openai:qwen-judge"
    lines = {r["id"]: r for r in map(json.loads, (run / "scores.jsonl").read_text(encoding="utf-8").splitlines())}
    apples, eggs = (next(r for k, r in lines.items() if name in k) for name in ("q-apples", "q-eggs"))
    flags = [(i, f) for i, s in enumerate(apples["assessment"]["steps"]) for f in s["flags"] if f["kind"] == "judge"]
    assert [i for i, _ in flags] == [1]
    assert "qwen-judge" in flags[0][1]["message_zh"] and "评审模型" in flags[0][1]["message_zh"]
    assert "judge" in apples["assessment"]["detectors"] and "judge" not in apples["assessment"]["unavailable"]
    assert "no readable verdict" in (worded(eggs["assessment"]["unavailable"]["judge"]) or "")
    assert not any(f["kind"] == "judge" for s in eggs["assessment"]["steps"] for f in s["flags"])
    again = runner.invoke(app, args)  # the file holds the judge's flags: a resume without it is refused
    assert again.exit_code == 2 and "scored with other detectors" in again.output


def test_the_page_shows_whose_verdict_a_step_has(tmp_path: Path, minilm_path: str) -> None:
    run, _, _ = _score_with_judge(tmp_path, minilm_path)
    out = tmp_path / "report"
    result = runner.invoke(app, ["report", str(run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "评审模型（openai:qwen-judge）认为这是第一个错误步骤" in page  # on the step the judge named
    assert '"verdict_models":{"judge":"openai:qwen-judge"}' in page  # and in the run's entry of the payload


def test_a_job_stopped_before_its_records_were_written_does_not_ask_the_judge_again(
    tmp_path: Path, minilm_path: str
) -> None:
    # A chunk's records are written once all its chains are scored: a job killed after the judge had answered lost
    # every answer and asked (and paid) again. Deleting the score file stands for that kill.
    run, judge, args = _score_with_judge(tmp_path, minilm_path)
    first = (run / "scores.jsonl").read_text(encoding="utf-8")
    (run / "scores.jsonl").unlink()
    (run / "scores.json").unlink()
    [log] = run.glob("scores.judge-openai_qwen-judge-*.jsonl")
    assert len(log.read_text(encoding="utf-8").splitlines()) == 2
    with OpenAIServer(cast(TransformersBackend, judge)) as server:
        http = ["--judge-model", "qwen-judge", "--judge-backend", "openai", "-J", f"base_url={server.base_url}"]
        again = runner.invoke(app, [*args, *http, "-J", "api_key=t"])
    assert again.exit_code == 0, again.output
    assert len(judge.requests) == 2  # the two chains were judged once
    assert _flags((run / "scores.jsonl").read_text(encoding="utf-8")) == _flags(first)


def _flags(scores: str) -> list[list[tuple[str, int]]]:
    """Each score line's step flags, as (kind, step)."""
    lines = [json.loads(line) for line in scores.splitlines()]
    return [[(f["kind"], i) for i, s in enumerate(r["assessment"]["steps"]) for f in s["flags"]] for r in lines]
