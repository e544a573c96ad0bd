"""Xiezhi's API models rank the options through an instruction (#26 item 7): the real openai backend, over
HTTP to a local server, is asked in words by default on a Xiezhi bank, and its reply is read as a ranking."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.testing.openai_server import Faults, OpenAIServer
from tests.scripted import ScriptedBackend, prompt_text

OPTIONS = ["尧时期", "禹时期", "黄帝时期", "舜时期"]


def _reply(request: object) -> str:
    """Rank the options backwards (the last one written first), as a list of lines."""
    text = prompt_text(request)  # type: ignore[arg-type]
    assert "从高到低排序" in text  # the ranking instruction, not "output the right option"
    return "\n".join(f"{i}. {o}" for i, o in enumerate(reversed(OPTIONS), start=1))


@pytest.mark.slow
def test_an_api_model_ranks_xiezhi_options_in_words(tmp_path: Path) -> None:
    bank = tmp_path / "xiezhi_spec_chn.jsonl"
    record = {"question": "中国历史上第一个奴隶制国家建立于_____", "labels": ["历史学"], "answer": "禹时期",
              "options": "\n".join(OPTIONS)}  # fmt: skip
    bank.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    with OpenAIServer(ScriptedBackend(_reply), Faults()) as server:  # type: ignore[arg-type]
        args = ["run", str(bank), "-m", "scripted", "-b", "openai", "-B", f"base_url={server.base_url}", "-o", str(out)]
        result = CliRunner().invoke(app, [*args, "--variant", "original"])  # one question: too few for 50 options
    assert result.exit_code == 0, result.output
    header = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert header["strategy"] == "instruct-rank"
    assert header["protocol"]["overrides"] == {"variant": {"protocol": "options-50", "given": "original"}}
    (answer,) = [json.loads(line) for line in (out / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    # 舜时期 D, 黄帝时期 C, 禹时期 B (the gold, third), 尧时期 A
    assert answer["gold_rank"] == 3 and answer["extracted"] == ["D"] and answer["correct"] is False
    report = tmp_path / "report"
    result = CliRunner().invoke(app, ["report", str(out), "-o", str(report), "--no-plots"])
    assert result.exit_code == 0, result.output
    ranking = (report / "tables" / "xiezhi_ranking.csv").read_text(encoding="utf-8-sig")
    assert "0.333" in ranking and "Random-Guess" in ranking  # MRR 1/3


def test_a_template_set_that_cannot_ask_for_a_ranking_is_refused_in_one_line(tmp_path: Path) -> None:
    bank = tmp_path / "xiezhi_spec_chn.jsonl"
    record = {"question": "题_____", "labels": ["历史学"], "answer": "禹时期", "options": "\n".join(OPTIONS)}
    bank.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    args = ["run", str(bank), "-m", "m", "-b", "openai", "-o", str(tmp_path / "r"), "--templates", "ck12",
            "--strategy", "instruct-rank", "-B", "base_url=http://127.0.0.1:9", "--variant", "original"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "has no rank_instruction, rank_fewshot_instruction phrase" in result.output
