"""A benchmark named to ``run`` (#34 item 1): ``--pull`` fetches it first, ``run.json`` records the name typed and
the revision beside the folder, and a name in a ``--config`` file stays a name."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval import api
from k12eval.banks import ArchiveSource
from k12eval.cli import app
from k12eval.cli._config import load_config
from k12eval.cli.run import run as run_command
from tests.k12eval.banks.hub_server import FakeHub
from tests.k12eval.banks.test_banks_archive import home, server  # noqa: F401 (fixtures used by name)
from tests.k12eval.banks.test_banks_hub import _ceval_repo, caches  # noqa: F401 (fixture)
from tests.kg.test_importers_gaokao import release
from tests.runners.backends.test_replay_gaokao import MODEL, results_folder
from tests.scripted import ScriptedBackend

COMMIT = "6dbb24f8d8439041e5431c4c184a582182a6ce9c"


def _gaokao_archive(tmp_path: Path) -> tuple[bytes, Path]:
    """GAOKAO-Bench's archive as GitHub serves it (one top folder, the bank in Data/), and a results folder for it."""
    top = tmp_path / "src" / f"GAOKAO-Bench-{COMMIT}"
    data = release(top)
    archive = tmp_path / "gaokao.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for file in sorted(top.rglob("*.json")):
            zf.write(file, file.relative_to(tmp_path / "src").as_posix())
    return archive.read_bytes(), results_folder(tmp_path / "results", data)


@pytest.mark.usefixtures("home")
def test_pull_fetches_a_named_bank_first_and_run_json_names_what_was_typed(
    tmp_path: Path,
    server: tuple[str, dict[str, bytes]],  # noqa: F811 (the imported fixture, by name)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, files = server
    archive, answers = _gaokao_archive(tmp_path)
    files["/OpenLMLab/GAOKAO-Bench.zip"] = archive
    monkeypatch.setattr(ArchiveSource, "url", property(lambda self: f"{url}/{self.repo}.zip"))
    argv = ["run", "GaokaoBench", "-b", "replay", "-m", MODEL, "-B", f"path={answers}", "-o", str(tmp_path / "run")]
    refused = CliRunner().invoke(app, argv)
    assert refused.exit_code == 2 and refused.output.startswith("error: benchmark gaokao (")
    assert "k12eval data pull gaokao" in refused.output and refused.output.strip().endswith(
        "or run again with --pull to fetch it first"
    )
    assert not (tmp_path / "run").exists()
    ran = CliRunner().invoke(app, [*argv, "--pull", "-q"])
    assert ran.exit_code == 0, ran.output
    assert f"pulled gaokao (github OpenLMLab/GAOKAO-Bench) into {tmp_path}" in " ".join(ran.output.split())
    data = json.loads((tmp_path / "run" / "run.json").read_text("utf-8"))["data"]
    assert data["path"].endswith(f"GAOKAO-Bench-{COMMIT}/Data")
    assert data["named"] == {"as_typed": "GaokaoBench", "benchmark": "gaokao", "subject": None, "revision": COMMIT,
                             "origin": f"archive {url}/OpenLMLab/GAOKAO-Bench.zip"}  # fmt: skip
    gaokao = json.loads((tmp_path / "run" / "summary.json").read_text("utf-8"))["gaokao"]
    assert gaokao["graders"]["gaokao-release"]["overall"]["earned"] == 24
    files.clear()  # here now: --pull fetches nothing, and the name alone runs
    again = CliRunner().invoke(app, [*argv[:-1], str(tmp_path / "run2"), "--pull", "-q"])
    assert again.exit_code == 0 and "pulled" not in again.output


def test_a_hub_copy_is_recorded_with_its_commit(caches: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    with FakeHub({"ceval/ceval-exam": _ceval_repo(caches / "scratch")}).serving() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        result = CliRunner().invoke(app, ["run", "ceval-valid_computer_network", "--pull", "-m", "x", "-o",
                                          str(caches / "dry"), "--dry-run", "--limit", "1"])  # fmt: skip
        assert result.exit_code == 0, result.output
        commit = hub.commits["ceval/ceval-exam"]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    api.run("ceval-valid_computer_network", "scripted", caches / "run", backend=ScriptedBackend("A"), limit=1)
    named = json.loads((caches / "run" / "run.json").read_text("utf-8"))["data"]["named"]
    assert named == {"as_typed": "ceval-valid_computer_network", "benchmark": "ceval", "subject": "计算机网络",
                     "revision": commit, "origin": "hub ceval/ceval-exam"}  # fmt: skip


def test_a_path_is_recorded_as_a_path(tmp_path: Path) -> None:
    data = release(tmp_path)
    api.run(data, "scripted", tmp_path / "run", backend=ScriptedBackend("A"), limit=1)
    assert "named" not in json.loads((tmp_path / "run" / "run.json").read_text("utf-8"))["data"]


def test_a_benchmark_named_in_a_config_file_stays_a_name(tmp_path: Path) -> None:
    config = tmp_path / "configs" / "run.toml"
    config.parent.mkdir()
    config.write_text('[run]\ndata = "gaokao"\nfew_shot = "hf://ceval/ceval-exam"\nmapping = "map.toml"\n', "utf-8")
    defaults = load_config(config, run_command, "run")
    # names as written; a file name relative to the config's folder, as before
    assert (defaults["data"], defaults["few_shot"]) == ("gaokao", "hf://ceval/ceval-exam")
    assert defaults["mapping"] == str(config.parent / "map.toml")
    release(config.parent / "gaokao")  # a folder of that name beside the config: a path wins, as on the command line
    assert load_config(config, run_command, "run")["data"] == str(config.parent / "gaokao")


@pytest.mark.usefixtures("home")
def test_a_config_naming_a_pulled_benchmark_runs_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive, _ = _gaokao_archive(tmp_path)
    (tmp_path / "gaokao.zip").write_bytes(archive)
    assert CliRunner().invoke(app, ["data", "pull", "gaokao", "--from", str(tmp_path / "gaokao.zip")]).exit_code == 0
    config = tmp_path / "configs" / "run.toml"
    config.parent.mkdir()
    config.write_text('[run]\ndata = "gaokao"\nmodel = "x"\nout = "r"\nlimit = 1\n', "utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["run", "--config", str(config), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "protocol gaokao" in result.output
