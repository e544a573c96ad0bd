"""GAOKAO-Bench's protocol (#31 item 7): each file's released prefix, then the question as published, zero-shot."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from typer.testing import CliRunner

from k12eval.cli import app
from kg.importers import load_questions
from runners.prompting import build_prompt
from runners.templates import load_template_set
from tests.kg.test_importers_gaokao import release

TEMPLATE = Path(__file__).resolve().parents[2] / "runners" / "prompts" / "gaokao.zh.toml"
RELEASE_PREFIXES = {
    # Two of the release's Bench/Obj_Prompt.json prefixes, typed here from the release (not read from the set).
    "2012-2022_English_Cloze_Test": "请回答下面的问题，将符合题意的五个选项的字母写在【答案】和<eoa>之间，例如“【答案】 A B C D E "
    "<eoa>\n请严格按照上述格式作答。\n",
    "2010-2022_Chinese_Modern_Lit": "请你做一道语文阅读理解题，其中包含三个小题。\n请你一步一步思考。每一题你将从A，B，C，D中选出正确的答案，"
    "并写在【答案】和<eoa>之间。\n例如：（1）【答案】 A <eoa>\n（2）【答案】 B <eoa>\n请你严格按照上述格式作答。\n",
}


def test_every_file_is_asked_with_its_own_prefix_then_its_question_as_published(tmp_path: Path) -> None:
    data = release(tmp_path)
    templates = load_template_set("gaokao", "zh")
    prefixes = {
        task: phrases["instruction"] for task, phrases in tomllib.loads(TEMPLATE.read_text("utf-8"))["tasks"].items()
    }
    assert len(prefixes) == 14
    for key, prefix in RELEASE_PREFIXES.items():
        assert prefixes[key] == prefix
    for question in load_questions(data).questions:
        task = question.extra["task"]
        published = next(
            e["question"]
            for e in json.loads((data / "Objective_Questions" / f"{task}.json").read_text("utf-8"))["example"]
            if f"gaokao/{task}/{e['index']}" == question.id
        )
        # OpenCompass's GaokaoBench: prefix_prompt + question; the release sends question.strip() + "\n".
        assert (
            build_prompt(question, "zero-shot", "zh", (), templates).text == prefixes[task] + published.strip() + "\n"
        )


def test_a_gaokao_bank_runs_under_its_protocol(tmp_path: Path) -> None:
    data = release(tmp_path)
    result = CliRunner().invoke(
        app, ["run", str(data), "-m", "x", "-o", str(tmp_path / "r"), "--dry-run", "--limit", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "protocol gaokao, seed 0, templates gaokao" in result.output and "strategy generate" in result.output
    assert "请你做一道语文阅读理解题" in result.output  # the first file in id order is Chinese_Modern_Lit
