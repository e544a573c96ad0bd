"""The built wheel installs in a fresh virtualenv, ships the sample, and runs without the optional extras."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from fnmatch import fnmatch
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


def _build_backend_here() -> bool:
    """Whether this interpreter has the setuptools pyproject.toml asks for (else pip builds in isolation, from the
    registry: a venv made by ``python -m venv`` carries an older one)."""
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 77


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """k12eval's wheel, built as a user builds it (``pip wheel``) from a copy, so no build/ or egg-info lands in
    the checkout."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, src / name)
    for package in PACKAGES:
        shutil.copytree(REPO / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    isolation = ["--no-build-isolation"] if _build_backend_here() else []
    _sh(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", *isolation, "-w", tmp_path / "dist", src, cwd=tmp_path)
    return next((tmp_path / "dist").glob("k12eval-*.whl"))


def _package_files() -> list[str]:
    """Every file git tracks in the five packages: what the code may open at run time, as a checkout has it."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: which files are the packages' own is unknown")
    listed = subprocess.run(
        ["git", "-c", "core.quotepath=off", "ls-files", "-z", "--", *PACKAGES],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(name for name in listed.split("\0") if name)


def test_package_data_patterns_name_every_data_file_of_the_packages() -> None:
    # Fast: the patterns of [tool.setuptools.package-data], read as setuptools reads them (relative to the package
    # folder; "*" for every package). A data file of a new kind (a font, a .txt prompt) fails here at once.
    import tomllib

    patterns = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"
    ]
    unshipped = []
    for name in _package_files():
        path = Path(name)
        if path.suffix == ".py" or path.name.startswith("."):
            continue
        shipped = any(fnmatch(path.name, pattern) for pattern in patterns.get("*", []))
        for package, globs in patterns.items():
            if package != "*" and path.is_relative_to(package):
                inside = path.relative_to(package).as_posix()
                shipped |= any(fnmatch(inside, pattern) for pattern in globs)
        if not shipped:
            unshipped.append(name)
    assert not unshipped, f"add a [tool.setuptools.package-data] pattern for: {unshipped}"


@pytest.mark.slow
def test_the_wheel_holds_every_file_of_the_packages(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as built:
        held = set(built.namelist())
    missing = [name for name in _package_files() if name not in held]
    assert not missing, f"{wheel.name} lacks files the packages have: {missing}"
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in held), "the licence text is not in the wheel"


_LOADERS = """
import json
from k12eval.api import sample_bank
from k12eval.models._catalogue import load_catalogue
from reasoning_metrics.combine.model import load_combiner
from reasoning_metrics.flag_evidence import EVIDENCE_DIR, flag_evidence
from reasoning_metrics.models.judge_model import judge_prompts
from reasoning_metrics.scales import SCALES_FILE, encoder_entry
from reasoning_metrics.verify.rules.judge import load_template
from reasoning_metrics.verify.rules.rollouts import rollout_prompt
from reports.html import asset
from runners.templates import available_template_sets, load_template_set

evidence = json.loads((EVIDENCE_DIR / "flag_evidence.json").read_text(encoding="utf-8"))
scales = json.loads(SCALES_FILE.read_text(encoding="utf-8"))
read = {
    "catalogue": len(load_catalogue().entries),
    "combiner": load_combiner("default") is not None,
    "flag_evidence": len(flag_evidence("zh", evidence["encoder"]["zh"])),
    "judge_prompts": sorted(judge_prompts()),
    "encoder_scales": all(encoder_entry(name) for name in scales["encoders"]),
    "judge": [bool(load_template(lang).system) for lang in ("zh", "en")],
    "rollout": bool(rollout_prompt("小明有 3 个苹果，又买了 2 个。", ["3 + 2 = 5"], chat=True)),
    "assets": [len(asset(name)) > 0 for name in ("report.html", "report.js", "report.css", "katex.min.js", "katex.min.css")],
    "templates": [bool(load_template_set(name, lang).fewshot_budget) for name, lang in available_template_sets()],
    "samples": [sample_bank(name).is_dir() for name in ("sample", "sample_dev")],
}
print(json.dumps(read))
"""


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv holding the wheel and its core dependencies only."""
    env = tmp_path_factory.mktemp("installed") / "venv"
    venv.create(env, with_pip=True)
    _sh(env / "bin" / "python", "-m", "pip", "install", "-q", wheel, cwd=env.parent)
    return env


@pytest.mark.slow
def test_every_packaged_file_the_code_reads_loads_from_the_installed_wheel(installed: Path, tmp_path: Path) -> None:
    # Each reader of a data file, run where only the wheel is installed, outside the checkout: a file left out of
    # the wheel, or read by a path outside its package, fails here (flag_evidence would silently read nothing).
    read = json.loads(_sh(installed / "bin" / "python", "-c", _LOADERS, cwd=tmp_path, stdout_only=True))
    assert read["catalogue"] > 0 and read["combiner"] and read["flag_evidence"] > 0 and read["encoder_scales"]
    assert read["judge_prompts"] and read["judge"] == [True, True] and read["rollout"]
    assert read["assets"] == [True] * 5 and len(read["templates"]) >= 8 and all(read["templates"])
    assert read["samples"] == [True, True]


@pytest.mark.slow
def test_wheel_installs_and_runs_the_packaged_sample(installed: Path, tmp_path: Path) -> None:
    env = installed
    python = env / "bin" / "python"
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
