"""The built wheel installs in a fresh virtualenv, ships the sample, and runs without the optional extras."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("kg", "runners", "reasoning_metrics", "reports", "k12eval")


def _sh(*args: str | Path, cwd: Path, stdout_only: bool = False) -> str:
    # Nothing from the test's own environment may leak in (a PYTHONPATH would hide what the wheel lacks).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout if stdout_only else done.stdout + done.stderr


@pytest.mark.slow
def test_wheel_installs_and_runs_the_packaged_sample(tmp_path: Path) -> None:
    # Build from a copy, so no build/ or egg-info lands in the checkout.
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    for package in PACKAGES:
        shutil.copytree(REPO / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    _sh(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "-q",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        tmp_path / "dist",
        src,
        cwd=tmp_path,
    )
    wheel = next((tmp_path / "dist").glob("k12eval-*.whl"))

    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    _sh(python, "-m", "pip", "install", "-q", wheel, cwd=tmp_path)  # the core dependencies only
    k12eval = env / "bin" / "k12eval"
    work = tmp_path / "work"  # not the checkout: nothing may come from data/sample here
    work.mkdir()

    assert "--per-subject" in _sh(k12eval, "demo", "--help", cwd=work)
    sample = _sh(python, "-c", "import k12eval; print(k12eval.sample_bank())", cwd=work).strip()
    assert Path(sample).is_relative_to(env) and Path(sample).is_dir()
    stats = json.loads(_sh(k12eval, "kg", "stats", sample, "--json", cwd=work, stdout_only=True))  # warnings: stderr
    assert stats["questions"] == 63

    # The core install is light: the report leaves out what its extras would add, and says so.
    absent = _sh(
        python,
        "-c",
        "import importlib.util as u; print([m for m in ('matplotlib', 'pyarrow', 'openpyxl', 'torch') if u.find_spec(m)])",
        cwd=work,
    )
    assert absent.strip() == "[]"
    answers = work / "answers.jsonl"
    script = (
        "import json, k12eval\n"
        f"with open({str(answers)!r}, 'w', encoding='utf-8') as f:\n"
        "    for q in k12eval.load_bank(k12eval.sample_bank()):\n"
        "        f.write(json.dumps({'question_id': q.id, 'output': '答案是 A'}) + '\\n')\n"
    )
    _sh(python, "-c", script, cwd=work)
    _sh(k12eval, "run", sample, "-m", "recorded", "-b", "replay", "-B", f"path={answers}", "-o", "run", cwd=work)
    said = _sh(k12eval, "report", "run", "-o", "report", "--xlsx", cwd=work)
    for extra in ("parquet", "plots", "xlsx"):
        assert f"k12eval[{extra}]" in said
    assert (work / "report" / "index.html").is_file() and (work / "report" / "nodes.csv").is_file()
    assert not list((work / "report").glob("*.parquet"))
