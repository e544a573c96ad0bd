"""`k12eval --help` must import no model library (its speed is measured by benchmarks/bench_startup.py)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO

HEAVY = ("torch", "transformers", "sentence_transformers", "vllm", "huggingface_hub", "pyarrow")

_PROBE = """
import json, sys
from k12eval.cli import app
try:
    app(["--help"])
except SystemExit:
    pass
for group in {groups!r}:
    try:
        app([group, "--help"])
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})), file=sys.stderr)
"""


def _groups() -> list[str]:
    from typer.main import get_command

    from k12eval.cli import app

    return sorted(get_command(app).commands)  # type: ignore[attr-defined]


def test_help_imports_no_model_library() -> None:
    code = _PROBE.format(groups=_groups(), heavy=HEAVY)
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert "Usage" in proc.stdout
    loaded = json.loads(proc.stderr.strip().splitlines()[-1])
    assert loaded == [], f"--help imported {loaded}"
