"""The library names a setting as the Python API does; the command line words it with its flag (#35 item 1).

One bad input, two readers: ``k12eval.run(..., mode="few-shot")`` says ``mode``, ``k12eval run --mode few-shot``
says ``--mode`` (k12eval.cli._wording.FLAGS); tests/test_architecture.py keeps flags out of the library's texts.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from typer.testing import CliRunner

import k12eval
from k12eval.cli import app
from k12eval.cli._common import os_error_text
from k12eval.cli._wording import said
from kg.errors import InputError, OtherRunError, SettingError, SettingOSError
from tests._runs import question, write_bank
from tests.scripted import ScriptedBackend


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", [question("q1", "数学", "函数", "一次函数")])


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    return result.output


def test_a_setting_is_its_keyword_in_the_api_and_its_flag_on_the_command_line(bank: Path, tmp_path: Path) -> None:
    with pytest.raises(SettingError) as refused:
        k12eval.run(bank, "m", tmp_path / "api", backend=ScriptedBackend("A"), mode="few-shot")
    assert refused.value.setting == "mode" and refused.value.value == "few-shot"
    assert str(refused.value).startswith("mode 'few-shot': needs few_shot= (a question bank")
    said_here = _cli(
        "run", str(bank), "-m", "m", "-b", "replay", "-B", "path=x", "--mode", "few-shot", "-o", str(tmp_path / "o")
    )
    assert said_here.startswith("error: --mode 'few-shot': needs --few-shot (a question bank"), said_here
    assert not (tmp_path / "o").exists()


def test_a_setting_whose_flag_is_another_word(tmp_path: Path) -> None:
    # template_set is --templates, fmt --format, cache --no-cache: the one table in k12eval.cli._wording
    error = SettingError("template_set", "mmlu", lambda name: f"unknown; see {name('fmt')} and {name('types', 'x')}")
    assert str(error) == "template_set 'mmlu': unknown; see fmt= and types='x'"
    assert said(error) == "--templates 'mmlu': unknown; see --format and --types x"
    assert said(error, {"fmt": "-f"}) == "--templates 'mmlu': unknown; see -f and --types x"  # a command's own


def test_a_report_of_a_missing_bank_names_data_by_the_command_s_flag(bank: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    k12eval.run(bank, "m", run, backend=ScriptedBackend("A"))
    missing = tmp_path / "nowhere.jsonl"
    with pytest.raises(SettingError, match=f"^data {missing}: no such file or folder"):
        k12eval.load_runs(run, data=missing)
    assert _cli("report", str(run), "--data", str(missing), "-o", str(tmp_path / "r")) == (
        f"error: --data {missing}: no such file or folder\n"
    )


def test_an_other_run_says_the_option_to_change_in_either_words(bank: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    k12eval.run(bank, "m", run, backend=ScriptedBackend("A"))
    with pytest.raises(OtherRunError) as refused:
        k12eval.run(bank, "other", run, backend=ScriptedBackend("A"))
    assert "choose another out=, or repeat the original options" in str(refused.value)
    assert "choose another --out, or repeat the original options" in said(refused.value)
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"question_id": "q1", "output": "A"}\n', encoding="utf-8")
    said_here = _cli("run", str(bank), "-m", "other", "-b", "replay", "-B", f"path={answers}", "-o", str(run))
    assert "holds a different run (" in said_here and "choose another --out, or repeat" in said_here, said_here


def test_a_cache_that_cannot_be_used_names_the_setting_that_does_without_it() -> None:
    error = SettingOSError(errno.ENOSPC, lambda name: f"disk full; score without it ({name('cache')})", "/c.sqlite")
    assert isinstance(error, OSError) and error.strerror == "disk full; score without it (cache=)"
    assert os_error_text(error) == "/c.sqlite: disk full; score without it (--no-cache)"


def test_a_fixed_text_is_the_same_in_both_words() -> None:
    error = InputError("bank.jsonl, line 3: bad")
    assert error.wording is None and said(error) == str(error) == "bank.jsonl, line 3: bad"
