"""The run and score locks where there is no ``fcntl`` (native Windows), #27 item 8.

Each check runs in a subprocess whose ``import fcntl`` fails, as it does on Windows.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from runners.testing.openai_server import OpenAIServer
from tests._runs import question, write_bank
from tests.scripted import ScriptedBackend

REPO = Path(__file__).resolve().parents[2]
NO_FCNTL = "import sys\nsys.modules['fcntl'] = None  # import fcntl fails, as on Windows\n"


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", NO_FCNTL + code], cwd=cwd, capture_output=True, text=True, timeout=300)


def _k12eval(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = f"from k12eval.cli import main\nsys.argv = ['k12eval', *{args!r}]\nmain()\n"
    return _python(f"sys.path.insert(0, {str(REPO)!r})\n{code}", cwd)


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(ScriptedBackend("正确答案是：B")) as running:  # type: ignore[arg-type]
        yield running


@pytest.mark.slow
def test_run_report_and_models_start_and_finish_without_fcntl(server: OpenAIServer, tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", [question("q0", "物理", "力学", "浮力", stem="浮力的方向是")])
    run = _k12eval(["run", str(bank), "-b", "openai", "-m", "scripted", "-B", f"base_url={server.base_url}",
                    "-o", str(tmp_path / "r")], tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    [record] = [json.loads(line) for line in (tmp_path / "r" / "records.jsonl").read_text("utf-8").splitlines()]
    assert record["extracted"] == ["B"]
    report = _k12eval(["report", str(tmp_path / "r"), "--data", str(bank), "-o", str(tmp_path / "out")], tmp_path)
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "out" / "index.html").is_file()
    models = _k12eval(["models", "list"], tmp_path)
    assert models.returncode == 0, models.stderr


def test_where_the_system_has_no_lock_the_command_goes_on_with_one_warning(tmp_path: Path) -> None:
    # Without fcntl, filelock takes the system's lock (LockFileEx on Windows); where there is none at
    # all (this Linux without fcntl), the command goes on with one warning instead of failing to start.
    code = (
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "import logging; logging.basicConfig(level=logging.WARNING, format='%(message)s')\n"
        "from pathlib import Path\nfrom runners.files import lock_folder\n"
        f"with lock_folder(Path({str(tmp_path / 'run')!r})):\n    print('held')\n"
    )
    proc = _python(code, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "held"
    assert "offers no file lock" in proc.stderr and proc.stderr.count("\n") == 1
