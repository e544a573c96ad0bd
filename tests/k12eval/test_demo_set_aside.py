"""`make demo` after an upgrade: its own run folder and score file, made by another version, are set aside."""

from __future__ import annotations

from pathlib import Path

import pytest

from k12eval.cli._demo_pipeline import set_aside
from kg.errors import OtherRunError
from runners.options import RunOptions
from runners.run import run_questions
from tests._runs import question, write_bank
from tests.scripted import ScriptedBackend


def _options(bank: Path, out: Path, model: str) -> RunOptions:
    return RunOptions(data=bank, model=model, out=out, backend="scripted", backend_instance=ScriptedBackend("答案是 A"))


def test_a_run_made_with_other_options_is_moved_aside_and_the_stage_runs_again(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank.jsonl", [question(f"q{i}", "数学", "函数", "一次函数") for i in range(3)])
    out = tmp_path / "work" / "zero-shot-cot"
    run_questions(_options(bank, out, "old-model"), command=["k12eval", "demo"])
    with pytest.raises(OtherRunError) as refused:
        run_questions(_options(bank, out, "new-model"), command=["k12eval", "demo"])
    assert refused.value.path == out
    said: list[str] = []
    kept = set_aside(refused.value, said.append)
    assert kept == out.with_name("zero-shot-cot.old-1") and (kept / "run.json").is_file() and not out.exists()
    assert "holds a different run" in said[0] and str(kept) in said[1]
    again = run_questions(_options(bank, out, "new-model"), command=["k12eval", "demo"])
    assert again.new == 3


def test_a_score_file_goes_with_its_header_and_an_old_copy_is_never_overwritten(tmp_path: Path) -> None:
    scores = tmp_path / "scores.jsonl"
    (tmp_path / "scores.old-1.jsonl").write_text("earlier\n", encoding="utf-8")
    scores.write_text("{}\n", encoding="utf-8")
    scores.with_suffix(".json").write_text("{}", encoding="utf-8")
    kept = set_aside(OtherRunError("scored with other detectors", scores), lambda _: None)
    assert kept.name == "scores.old-2.jsonl" and kept.with_suffix(".json").is_file()
    assert not scores.exists() and not scores.with_suffix(".json").exists()
    assert (tmp_path / "scores.old-1.jsonl").read_text(encoding="utf-8") == "earlier\n"
