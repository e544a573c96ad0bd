"""``k12eval run --dry-run [--limit N]``: the exact prompts, no model, no run folder, safe for a terminal (#16 item 10)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from tests._runs import question, write_bank

REPO = Path(__file__).resolve().parents[2]
HOSTILE = "清屏\x1b[2J反转\u202e末尾"
QUESTIONS = [
    question("q1", "数学", "函数", "一次函数", stem="直线 y=2x+1 的斜率是"),
    question("q2", "数学", "函数", "一次函数", stem=HOSTILE),
    question("q3", "物理", "力学", "浮力", stem="浮力的方向是"),
]


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", QUESTIONS)


def _dry(bank: Path, out: Path, *extra: str) -> str:
    # A model that exists nowhere and the transformers backend: nothing may be loaded.
    args = ["run", str(bank), "-m", "no/such-model", "-o", str(out), "--dry-run", *extra]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert not out.exists()
    return result.output


def _prompts(output: str) -> dict[str, str]:
    parts = re.split(r"\n## \d+/\d+ (\S+) \(\w+\)\n", output)
    return {qid: text.rstrip("\n") for qid, text in zip(parts[1::2], parts[2::2], strict=True)}


def test_the_first_n_prompts_are_those_a_run_sends(bank: Path, tmp_path: Path) -> None:
    shown = _prompts(_dry(bank, tmp_path / "dry", "--limit", "2", "--base"))
    assert len(shown) == 2
    answers = tmp_path / "answers.jsonl"
    answers.write_text("", encoding="utf-8")
    run = tmp_path / "run"
    args = ["run", str(bank), "-m", "x", "-b", "replay", "-B", f"path={answers}", "-o", str(run), "--base"]
    assert CliRunner().invoke(app, [*args, "--max-failures", "100%"]).exit_code == 0
    sent = {
        r["question_id"]: r["prompt"]
        for r in map(json.loads, (run / "records.jsonl").read_text(encoding="utf-8").splitlines())
    }
    first = next(iter(shown))
    assert shown[first] == sent[first]  # the same text, byte for byte (this one has nothing to escape)
    assert set(shown) <= set(sent)


def test_chat_prompts_are_the_messages_and_bank_text_is_escaped(bank: Path, tmp_path: Path) -> None:
    output = _dry(bank, tmp_path / "dry", "--chat")
    assert output.count("\n## ") == 3  # the default: three questions
    assert "\x1b" not in output and "\u202e" not in output
    assert "\\u001b[2J" in output and "\\u202e" in output  # JSON's escape, then the terminal's
    text = _dry(bank, tmp_path / "dry", "--base")
    assert "\x1b" not in text and "\u202e" not in text
    assert "清屏\\x1b[2J反转\\u202e末尾" in text
    messages = json.loads(next(text for qid, text in _prompts(output).items() if qid.endswith("q1")))
    assert messages[-1]["role"] == "user" and "直线 y=2x+1 的斜率是" in messages[-1]["content"]


def test_a_dry_run_checks_its_options_like_a_run(bank: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["run", str(bank), "-m", "x", "-o", str(tmp_path / "dry"), "--dry-run", "--mode", "few-shot"]
    )
    assert result.exit_code == 2 and "needs --few-shot" in result.output


def test_a_dry_run_imports_no_model_library(bank: Path, tmp_path: Path) -> None:
    code = (
        "import sys; from typer.testing import CliRunner; from k12eval.cli import app; "
        f"r = CliRunner().invoke(app, ['run', {str(bank)!r}, '-m', 'Qwen/Qwen2.5-0.5B', '-o', {str(tmp_path / 'o')!r}, "
        "'--dry-run']); assert r.exit_code == 0, r.output; "
        "print(sorted(m for m in ('torch', 'transformers', 'vllm', 'httpx') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_dry_run_of_a_shard_previews_that_shards_questions(tmp_path: Path) -> None:
    # The preview's 3 were taken before the shard, as a run's --limit is: shard 1/4 of a bank whose first
    # questions all hash elsewhere showed "no question matches the filters" for a shard that has questions.
    from runners.store import in_shard

    many = [question(f"q{i}", "数学", "函数", "一次函数", stem=f"第{i}题") for i in range(40)]
    bank = write_bank(tmp_path / "bank", many)
    mine = [q.id for q in many if in_shard(q.id, (0, 4))]
    assert mine and [q.id for q in many[:3]] != mine[:3]  # the bank's first three are not the shard's
    shown = _prompts(_dry(bank, tmp_path / "dry", "--shard", "1/4"))
    assert list(shown) == mine[:3]


@pytest.mark.parametrize(
    ("files", "chat"),
    [
        ({"chat_template.jinja": "{{ messages }}"}, True),  # where transformers 4.47+ saves it
        ({"tokenizer_config.json": json.dumps({"chat_template": "{{ messages }}"})}, True),
        ({"tokenizer_config.json": json.dumps({"model_max_length": 512})}, False),
    ],
)
def test_a_dry_run_of_a_local_model_shows_what_its_tokenizer_files_make_of_the_prompt(
    bank: Path, tmp_path: Path, files: dict[str, str], chat: bool
) -> None:
    # lm-eval's --write_out twin: a local chat model's run sends chat messages (detected from its tokenizer), but
    # its dry run showed text, read with no model loaded.
    model = tmp_path / "model"
    model.mkdir()
    for name, text in files.items():
        (model / name).write_text(text, encoding="utf-8")
    args = ["run", str(bank), "-m", str(model), "-o", str(tmp_path / "dry"), "--dry-run", "--limit", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    header = result.output.splitlines()[0]
    assert ("as chat messages (JSON)" in header) == chat, header
    assert "from the model's tokenizer files" in header, header


def test_a_dry_run_needs_no_run_folder(bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """lm-eval's --write_out needs no --output_path; ``--dry-run`` asked for --out and wrote nothing there."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["run", str(bank), "-m", "no/such-model", "--dry-run", "--limit", "1"])
    assert result.exit_code == 0, result.output
    assert "nothing written" in result.output and len(_prompts(result.output)) == 1
    assert list(tmp_path.iterdir()) == [bank]
    refused = CliRunner().invoke(app, ["run", str(bank), "-m", "no/such-model", "-b", "replay"])
    assert refused.exit_code == 2 and "--out" in refused.output and "--dry-run" in refused.output
