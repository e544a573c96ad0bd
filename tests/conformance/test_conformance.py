"""The conformance corpus (#27 Deliver 2): real files other tools wrote, replayed onto banks written here.

Each file is listed in ``tests/conformance/README.md`` with its source repository, path, commit and
licence. For each the test asserts how many questions were matched, how many failed and of which kind,
and that none was given another question's answer (each matched record's output is its own
prediction: 0 misattributed). Add a file here whenever a user's file breaks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.records import Question
from runners.backends.harness_match import FAILURES
from runners.store import RunStore
from tests._runs import question, write_bank

HERE = Path(__file__).parent
LAWBENCH = HERE / "opencompass"
_CHOICES = re.compile(r"A:(?P<A>.*?);B:(?P<B>.*?);C:(?P<C>.*?);D:(?P<D>.*?)。?$", re.S)
OTHER = ("下列哪一项不属于我国宪法规定的公民基本权利?", ["受教育权", "劳动权", "选举权", "纳税权"])
"""A question of our own, in no file: it must fail, never take a recorded answer."""
EXEMPLAR = ("对海洋环境污染享有管辖权的国家是", ["港口国", "缔约国", "群岛国", "内陆国"])
"""The one-shot prompts' example question: in every one-shot prompt, so it is ambiguous there."""


def _asked(prompt: str) -> tuple[str, list[str]]:
    """The question LawBench task 1-2 asked in ``prompt`` (after its instruction and example): stem, options."""
    text = prompt.split("请你回答：\n")[-1] if "请你回答：" in prompt else prompt.split("\n", 1)[1]
    stem, _, rest = text.partition("A:")
    match = _CHOICES.match("A:" + rest)
    assert match is not None, prompt
    return stem.strip(), [match.group(x).strip() for x in "ABCD"]


def _bank(predictions: dict[str, Any], root: Path) -> tuple[Path, dict[str, str]]:
    """A CK12-format bank of the file's questions in reverse order, plus :data:`OTHER` and :data:`EXEMPLAR`.

    Returns the bank and, for each question id, the prediction that is its own.
    """
    questions: list[Question] = []
    own: dict[str, str] = {}
    for n, record in enumerate(reversed(list(predictions.values()))):
        stem, options = _asked(record["origin_prompt"][0]["prompt"])
        gold = re.search(r"[ABCD]", record["refr"])
        assert gold is not None
        qid = f"law{n}"
        questions.append(question(qid, "政治", "法律", "法理", stem=stem, options=options, answer=[gold.group()]))
        own[qid] = record["prediction"]
    for qid, (stem, options) in (("other", OTHER), ("exemplar", EXEMPLAR)):
        questions.append(question(qid, "政治", "法律", "法理", stem=stem, options=options))
    return write_bank(root / "bank", questions), own


def _replay(bank: Path, path: Path, out: Path) -> dict[str, Any]:
    args = ["run", str(bank), "-b", "replay", "-m", "gpt-4", "-B", f"path={path}", "-o", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return {r.question_id: r for r in RunStore(out).records()}


def _kind(error: str | None) -> str:
    return next((kind for kind in FAILURES if (error or "").startswith(kind)), "other")


@pytest.mark.parametrize(
    ("folder", "matched", "failed"),
    [
        ("lawbench-zero_shot-GPT4", 4, {"no recorded output": 2}),
        # the example question is in all four one-shot prompts: ambiguous, not given any of them
        ("lawbench-one_shot-GPT4", 4, {"no recorded output": 1, "ambiguous": 1}),
    ],
)
def test_lawbench_opencompass_predictions(tmp_path: Path, folder: str, matched: int, failed: dict[str, int]) -> None:
    path = LAWBENCH / folder / "1-2.json"
    predictions = json.loads(path.read_text(encoding="utf-8"))
    bank, own = _bank(predictions, tmp_path)
    records = _replay(bank, path, tmp_path / "run")
    answered = {qid: r for qid, r in records.items() if r.parse_status != "failed"}
    misattributed = [qid for qid, r in answered.items() if own.get(qid) != r.output]
    kinds: dict[str, int] = {}
    for r in records.values():
        if r.parse_status == "failed":
            kinds[_kind(r.error)] = kinds.get(_kind(r.error), 0) + 1
    assert (len(answered), kinds, misattributed) == (matched, failed, [])
    assert all(r.harness is not None and r.harness["matched_by"] == "prompt" for r in answered.values())
    assert sum(bool(r.correct) for r in answered.values()) == 3  # GPT-4 chose B where LawBench's answer is C
    assert records["exemplar"].parse_status == "failed" and records["other"].parse_status == "failed"
