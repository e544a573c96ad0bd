"""PyPI namesakes of k12eval's top-level packages (``pip install reports``) are named at import, #27 item 8.

Each case is a fresh interpreter whose ``sys.path`` holds what the user's installation would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _foreign_reports(site: Path) -> None:
    """What ``pip install reports`` leaves: its own ``reports/__init__.py`` (over k12eval's, if there) and dist-info."""
    (site / "reports").mkdir(parents=True, exist_ok=True)
    (site / "reports" / "__init__.py").write_text('"""Another project\'s reports."""\n', encoding="utf-8")
    info = site / "reports-0.0.5.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: reports\nVersion: 0.0.5\n", encoding="utf-8")
    (info / "top_level.txt").write_text("reports\n", encoding="utf-8")


def _k12eval(pythonpath: list[Path], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, pythonpath))}
    return subprocess.run(
        [sys.executable, "-m", "k12eval", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def test_a_namesake_earlier_on_the_path_is_named_with_its_distribution(tmp_path: Path) -> None:
    _foreign_reports(tmp_path / "site")
    proc = _k12eval([tmp_path / "site", REPO], tmp_path, "report", "--help")
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last == (
        f"ImportError: the package 'reports' imported from {tmp_path / 'site' / 'reports'} is not k12eval's but one "
        "of the distribution 'reports' of the same name: pip uninstall reports, then "
        "pip install --force-reinstall k12eval, or give k12eval a virtualenv of its own"
    )


def test_a_namesake_written_over_k12evals_own_folder_is_named(tmp_path: Path) -> None:
    # One site-packages holding both: the other project's __init__.py replaced k12eval's.
    site = tmp_path / "site"
    for package in ("k12eval", "kg", "runners", "reasoning_metrics", "reports"):
        shutil.copytree(REPO / package, site / package, ignore=shutil.ignore_patterns("__pycache__", "data"))
    _foreign_reports(site)
    proc = _k12eval([site], tmp_path, "--help")
    assert proc.returncode != 0
    assert (
        proc.stderr.strip()
        .splitlines()[-1]
        .startswith(
            f"ImportError: the package 'reports' imported from {site / 'reports'} is not k12eval's but one "
            "of the distribution 'reports' of the same name: pip uninstall reports"
        )
    )
