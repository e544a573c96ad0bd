"""Backends from other packages (``k12eval.backends`` entry points), as a user installs them (#25 item 4, #27 item 7).

A real (tiny) distribution on ``sys.path`` of a ``k12eval`` subprocess: what ``pip install`` would leave.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from runners.backends import ENTRY_POINT_GROUP
from runners.store import RunStore
from tests._runs import question, write_bank

REPO = Path(__file__).resolve().parents[2]

MINE = '''
from runners.backends.base import Backend, GenerationResult, LoglikelihoodResult


class Mine(Backend):
    """Answers from a server that knows its models by name."""

    name = "mine"
    server_side_model = True
    is_chat = True

    def __init__(self, model):
        self.model = model

    def generate(self, requests):
        return [GenerationResult(r.id, texts=[f"{self.model} 说：答案是 B"], finish_reasons=["stop"]) for r in requests]

    def loglikelihood(self, requests):
        return [LoglikelihoodResult(r.id, error="no scores") for r in requests]

    def count_tokens(self, text):
        return len(text)
'''


def _install(site: Path, dist: str, module: str, source: str, entries: str) -> None:
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{entries}\n", encoding="utf-8")
    (site / f"{module}.py").write_text(source, encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    _install(folder, "mine-backend", "mine_backend", MINE, "mine = mine_backend:Mine")
    broken = "import no_such_module_for_k12eval_tests\n"
    _install(folder, "broken-backend", "broken_backend", broken, "broken = broken_backend:Broken")
    return folder


def _k12eval(site: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": f"{site}{os.pathsep}{REPO}",
        "HF_HUB_OFFLINE": "1",  # a model to load here could not be fetched: the plugin's must not be looked for
        "K12EVAL_HOME": str(tmp_path / "home"),
        "COLUMNS": "200",
    }
    command = [sys.executable, "-m", "k12eval", *args]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)


def test_a_plugin_that_takes_server_model_names_runs_with_any_name(site: Path, tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", [question("q0", "物理", "力学", "浮力", stem="浮力的方向是")])
    proc = _k12eval(site, tmp_path, "run", str(bank), "-b", "mine", "-m", "some-model", "-o", str(tmp_path / "r"))
    assert proc.returncode == 0, proc.stderr
    [record] = RunStore(tmp_path / "r").records()
    assert record.output == "some-model 说：答案是 B" and record.extracted == ["B"]


def test_a_broken_plugin_is_one_line_naming_its_package(site: Path, tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", [question("q0", "物理", "力学", "浮力", stem="浮力的方向是")])
    proc = _k12eval(site, tmp_path, "run", str(bank), "-b", "broken", "-m", "m", "-o", str(tmp_path / "r"))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    [line] = [line for line in proc.stderr.splitlines() if line.strip()]
    assert line == (
        f"error: backend 'broken' ({ENTRY_POINT_GROUP} entry point broken_backend:Broken of package broken-backend) "
        "is broken: ModuleNotFoundError: No module named 'no_such_module_for_k12eval_tests'"
    )


def test_backend_help_names_the_installed_plugins(site: Path, tmp_path: Path) -> None:
    proc = _k12eval(site, tmp_path, "run", "--help")
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.replace("│", " ").split())
    assert "transformers, vllm, openai or replay, or a plugin backend" in text
    assert "installed: broken, mine)" in text
