"""A command writing one file replaces it whole or not at all: stopped mid-write, the last one is kept byte for byte.

Before: ``kg export`` (JSON and GraphML), ``kg overlap -o``, ``meta-eval --out`` and ``calibrate -o`` wrote
their file in place, so a second run stopped mid-write (a kill, a full disk; here a file-size limit, which makes
every write past it fail: an event the test sets, not a race) left the first 1,000 bytes of the new file where the
whole old one had been, and said only ``error: File too large``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from tests._runs import question, write_bank

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
META = ["meta-eval", "pb.json", "-f", "processbench", "-d", "arithmetic", "--boot", "10"]
COMMANDS = {
    "graph.json": ["kg", "export", "xz", "-o", "graph.json"],
    "graph.graphml": ["kg", "export", "xz", "-o", "graph.graphml"],
    "pairs.csv": ["kg", "overlap", "bank", "twin", "-o", "pairs.csv"],
    "meta.json": [*META, "--out", "meta.json"],
    "meta.md": [*META, "--out", "meta.md"],
    "combiner.json": ["calibrate", "pb.json", "-f", "processbench", "-o", "combiner.json"],
    "chains.jsonl": ["diagnostics", "make", "bank", "-o", "chains.jsonl"],  # wrote chains.jsonl.tmp, left it
}


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder: a Xiezhi bank, a ProcessBench set, and two CK12 banks sharing their questions."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(FIXTURES / "importers" / "xiezhi", tmp_path / "xz")
    shutil.copy(FIXTURES / "metaeval" / "processbench_math.json", tmp_path / "pb.json")
    questions = [
        question(
            f"q{i}",
            "数学",
            "函数",
            "一次函数",
            stem=f"第 {i} 题：下列函数中哪一个是一次函数？",
            analysis=f"因为 y = {i + 2}x + 1 是一次函数。所以 k = {i + 2}。所以选 A。",
        )
        for i in range(40)
    ]
    write_bank(tmp_path / "bank", questions)
    write_bank(tmp_path / "twin", questions)
    return tmp_path


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_write_stopped_midway_keeps_the_last_file_whole(name: str, work: Path) -> None:
    first: Any = CliRunner().invoke(app, COMMANDS[name])
    assert first.exit_code == 0, first.output
    before = (work / name).read_bytes()
    limit = len(before) // 2
    code = (
        "import resource, sys; from k12eval.cli import app; "
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
        f"sys.argv = ['k12eval', *{COMMANDS[name]!r}]; app()"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=work, timeout=600)
    assert done.returncode == 2, done.stderr
    assert (work / name).read_bytes() == before
    assert done.stderr.splitlines()[-1] == f"error: {name}: File too large"  # the file named
    assert [p.name for p in work.iterdir() if p.name.startswith((f".{name}.", f"{name}."))] == []  # no temporary file
