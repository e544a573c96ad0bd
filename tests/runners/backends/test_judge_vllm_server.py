"""The LLM judge end to end against vLLM's own OpenAI-compatible server on 127.0.0.1 (started from the vLLM
venv, a small real model): ``k12eval meta-eval --judge-backend openai`` asks it about Chinese chains with the
Chinese prompt, records its answers and names it as the judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("vllm")

from typer.testing import CliRunner

from k12eval.cli import app

pytestmark = [pytest.mark.vllm, pytest.mark.real_model, pytest.mark.slow]

CHAINS = [
    {
        "id": "apples",
        "problem": "小明有5个苹果，吃了2个，还剩几个？",
        "steps": ["小明原有5个苹果。", "吃了2个，所以还剩5+2=7个。", "答案：7"],
        "first_error": 1,
    },
    {
        "id": "square",
        "problem": "正方形的边长是3，它的面积是多少？",
        "steps": ["正方形面积等于边长的平方。", "3×3=9。", "答案：9"],
        "first_error": -1,
    },
]


def test_meta_eval_asks_a_served_model_in_chinese_and_names_it(vllm_server: str, tmp_path: Path) -> None:
    data, log = tmp_path / "chains.jsonl", tmp_path / "judge.jsonl"
    data.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CHAINS), encoding="utf-8")
    args = ["meta-eval", str(data), "-f", "chains", "--encoder", "none", "-d", "judge", "--boot", "0", "--json"]
    judge = ["--judge-model", "tiny", "--judge-backend", "openai", "-J", f"base_url={vllm_server}"]
    result = CliRunner().invoke(app, [*args, *judge, "--judge-max-tokens", "16", "--judge-log", str(log)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["models"]["judge"] == "tiny"
    (row,) = [d for d in report["detectors"] if d["name"] == "judge"]
    assert row["unavailable"] is None
    lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    # Each answer is logged as the server gives it (judge_log.judge_resumably): in the order they come back.
    assert sorted((x["id"], x["model"], x["backend"], x["error"]) for x in lines) == [
        ("apples", "tiny", "openai", None),
        ("square", "tiny", "openai", None),
    ]
    assert all(isinstance(x["response"], str) and x["response"] for x in lines)  # the server's own answers
