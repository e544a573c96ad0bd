"""Benchmarks by name through the real huggingface_hub: pulled from a hub on 127.0.0.1 (``HF_ENDPOINT``) into
the hub cache the library lays out, then found offline by ``kg stats`` and ``run`` (#34 item 1)."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from tests._cli import cli_ok
from tests.k12eval.banks.hub_server import FakeHub
from tests.kg.test_importers_parquet import ceval_columns, cmmlu_columns, pq, write_parquet

pytest.importorskip("huggingface_hub")


def _parquet(columns: dict[str, list[object]], tmp: Path) -> bytes:
    return write_parquet(tmp / "x.parquet", columns).read_bytes()


def _ceval_repo(tmp: Path) -> dict[str, bytes]:
    """ceval/ceval-exam as the hub has it since its Parquet conversion: <subject>/<split>-00000-of-00001.parquet,
    beside the README and the older zip (which a pull must not fetch)."""
    return {
        "README.md": b"---\nlicense: cc-by-nc-sa-4.0\n---\n",
        "ceval-exam.zip": b"not fetched",
        "computer_network/dev-00000-of-00001.parquet": _parquet(ceval_columns(id=[7, 8]), tmp),
        "computer_network/val-00000-of-00001.parquet": _parquet(ceval_columns(), tmp),
        "operating_system/val-00000-of-00001.parquet": _parquet(ceval_columns(id=[0, 1, 2], **_three()), tmp),
    }


def _three() -> dict[str, list[object]]:
    return {
        key: values + values[:1]
        for key, values in ceval_columns().items()
        if key != "id"  # a third row, so the two subjects differ in size
    }


def _cmmlu_zip() -> bytes:
    """cmmlu_v1_0_1.zip as haonan-li/cmmlu ships it: dev/<subject>.csv and test/<subject>.csv at its root."""
    buffer = io.BytesIO()
    columns = cmmlu_columns()
    with zipfile.ZipFile(buffer, "w") as zf:
        for split in ("dev", "test"):
            text = io.StringIO()
            writer = csv.writer(text)
            writer.writerow(["", "Question", "A", "B", "C", "D", "Answer"])
            for i in range(2):
                writer.writerow([i, *(columns[k][i] for k in ("Question", "A", "B", "C", "D", "Answer"))])
            zf.writestr(f"{split}/agronomy.csv", text.getvalue())
    return buffer.getvalue()


@pytest.fixture
def caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty hub cache (HF_HUB_CACHE) and K12EVAL_HOME; no HF_HOME, HF_ENDPOINT or offline switch."""
    for var in ("HF_HOME", "HF_ENDPOINT", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    return tmp_path


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[FakeHub]:
    scratch = tmp_path / "scratch"
    yield FakeHub({"ceval/ceval-exam": _ceval_repo(scratch), "haonan-li/cmmlu": {
        "README.md": b"# CMMLU\n", "cmmlu.py": b"# the loading script\n", "cmmlu_v1_0_1.zip": _cmmlu_zip()}})  # fmt: skip


def _stats(ref: str) -> dict[str, object]:
    result = CliRunner().invoke(app, ["kg", "stats", ref, "--json"])
    assert result.exit_code == 0, result.output
    stats: dict[str, object] = json.loads(result.stdout)  # stderr: the sparse-points warning
    return stats


def test_ceval_pulled_through_hf_endpoint_is_found_offline_by_every_name(
    caches: Path, hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    with hub.serving():
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        out = cli_ok("data", "pull", "ceval")
    commit = hub.commits["ceval/ceval-exam"]
    snapshot = caches / "hub" / "datasets--ceval--ceval-exam" / "snapshots" / commit
    assert f"hub ceval/ceval-exam at {commit}" in out and str(snapshot) in out
    fetched = sorted(r.split("/resolve/")[1].split("/", 1)[1] for r in hub.requests if r.startswith("GET /datasets/"))
    assert fetched == sorted(p for p in hub.repos["ceval/ceval-exam"] if p.endswith(".parquet"))  # not the zip
    assert (caches / "hub" / "datasets--ceval--ceval-exam" / "refs" / "main").read_text() == commit

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the hub is gone: everything below reads the cache
    expected = {"计算机网络": 4, "操作系统": 3}
    for name in ("ceval", "ceval/ceval-exam", "hf://ceval/ceval-exam", "hf://datasets/ceval/ceval-exam", "ceval-valid"):
        assert _stats(name)["by_subject"] == expected, name
    assert cli_ok("data", "path", "C-Eval").strip() == str(snapshot)
    listed = {row["name"]: row["path"] for row in json.loads(cli_ok("data", "list", "--json"))}
    assert listed["ceval"] == str(snapshot) and listed["cmmlu"] is None


def test_an_lm_eval_subtask_name_runs_its_subject(caches: Path, hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> None:
    with hub.serving():
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        cli_ok("data", "pull", "ceval-valid")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = cli_ok("run", "ceval-valid_operating_system", "--model", "m", "--out", str(caches / "run"), "--dry-run")
    asked = [line for line in out.splitlines() if line.startswith("## ")]
    assert asked and all("/operating_system/" in line for line in asked)


def test_a_copy_that_huggingface_hub_left_in_hf_home_is_found_without_a_pull(
    caches: Path, hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As `huggingface-cli download ceval/ceval-exam --repo-type dataset` leaves it: the whole repository,
    # in HF_HOME/hub, which k12eval never pulled.
    from huggingface_hub import snapshot_download

    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.setenv("HF_HOME", str(caches / "hf_home"))
    with hub.serving():
        snapshot_download(
            "ceval/ceval-exam", repo_type="dataset", cache_dir=caches / "hf_home" / "hub", endpoint=hub.url
        )
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert _stats("ceval")["questions"] == 7
    assert not (caches / "home" / "data").exists()  # nothing pulled, nothing copied


def test_cmmlu_fetches_its_zip_only_and_reads_the_unpacked_csvs(
    caches: Path, hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    with hub.serving():
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        cli_ok("data", "pull", "haonan-li/cmmlu")
    assert [r for r in hub.requests if r.startswith("GET /datasets/")] == [
        f"GET /datasets/haonan-li/cmmlu/resolve/{hub.commits['haonan-li/cmmlu']}/cmmlu_v1_0_1.zip"
    ]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    stats = _stats("cmmlu_agronomy")
    assert stats["format"] == "cmmlu" and stats["by_subject"] == {"农学": 4}
    unpacked = caches / "home" / "data" / "cmmlu" / hub.commits["haonan-li/cmmlu"]
    assert sorted(p.name for p in unpacked.iterdir()) == ["dev", "test"]


def test_offline_without_a_copy_is_one_line_naming_the_mirror_and_modelscope(
    caches: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for argv in (["kg", "stats", "cmmlu"], ["run", "cmmlu", "-m", "x", "-o", str(caches / "r"), "--dry-run"]):
        result = CliRunner().invoke(app, argv)
        assert result.exit_code == 2
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: benchmark cmmlu")
        assert "k12eval data pull cmmlu" in lines[0] and "HF_ENDPOINT=https://hf-mirror.com" in lines[0]
        assert "modelscope download --dataset modelscope/cmmlu" in lines[0]
    result = CliRunner().invoke(app, ["data", "pull", "ceval"])
    assert result.exit_code == 2
    assert "the hub is switched off (HF_HUB_OFFLINE)" in result.output and "hf-mirror.com" in result.output


def test_an_unreachable_endpoint_is_one_line_naming_it(caches: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeHub({}).serving() as gone:
        url = gone.url  # a port that answered once and is closed now
    monkeypatch.setenv("HF_ENDPOINT", url)
    result = CliRunner().invoke(app, ["data", "pull", "ceval"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: could not fetch ceval/ceval-exam from {url} (")
    assert len(result.output.strip().splitlines()) == 1


def test_a_folder_of_the_same_name_wins_over_the_benchmark(caches: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(caches)
    write_parquet(caches / "ceval" / "computer_network" / "val-00000-of-00001.parquet", ceval_columns())
    assert _stats("ceval")["questions"] == 2
    assert pq is not None
