"""Benchmarks from a publisher's archive, a URL or a local copy (a ModelScope download), unpacked safely (#34 item 1)."""

from __future__ import annotations

import json
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.banks import ArchiveSource, pull, read_pulled
from k12eval.banks._unpack import unpack
from k12eval.cli import app
from kg.errors import InputError
from tests._cli import cli_ok
from tests.importer_helpers import ck12_record
from tests.k12eval.models.test_models_offline import _zip as zip_bytes

CK12_TOP = "chinese-k12-evaluation-f23cfed115f037067bb72a1258c175661d6994aa"


def _zip(members: dict[str, str]) -> bytes:
    return zip_bytes({name: text.encode("utf-8") for name, text in members.items()})


def _ck12_archive() -> bytes:
    """The repository's archive as GitHub serves it: one top folder REPO-<commit>/, the bank under data/."""
    records = [ck12_record(id=f"r{i}") for i in range(3)]
    lines = "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n"
    return _zip({f"{CK12_TOP}/README.md": "# CK12\n", f"{CK12_TOP}/data/original_data/初中/数学/单选.jsonl": lines,
                 f"{CK12_TOP}/code/eval.py": "print()\n"})  # fmt: skip


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "home"


@pytest.fixture
def server() -> Iterator[tuple[str, dict[str, bytes]]]:
    """A web server on 127.0.0.1 serving the bytes put in its dict, by path."""
    files: dict[str, bytes] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:
            pass

        def do_GET(self) -> None:
            body = files.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", files
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def _questions(ref: str) -> int:
    result = CliRunner().invoke(app, ["kg", "stats", ref, "--json"])
    assert result.exit_code == 0, result.output
    count: int = json.loads(result.stdout)["questions"]
    return count


def test_the_publishers_archive_is_unpacked_at_its_commit_and_read_from_its_subfolder(
    home: Path, server: tuple[str, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, files = server
    files["/tal-tech/chinese-k12-evaluation.zip"] = _ck12_archive()
    monkeypatch.setattr(ArchiveSource, "url", property(lambda self: f"{url}/{self.repo}.zip"))
    out = cli_ok("data", "pull", "ck12")
    bank = home / "data" / "ck12" / CK12_TOP.rsplit("-", 1)[1] / CK12_TOP / "data"
    assert out.strip().endswith(f"-> {bank}")
    assert _questions("ck12") == 3 and _questions("chinese-k12-evaluation") == 3
    files.clear()  # a second pull finds it here and fetches nothing
    assert "ck12: already here" in cli_ok("data", "pull", "ck12")
    assert not list((home / "data" / "ck12").glob(".download-*"))  # the downloaded zip is not kept


def test_a_zip_fetched_elsewhere_is_pulled_with_from(home: Path, tmp_path: Path) -> None:
    archive = tmp_path / "GAOKAO-Bench-main.zip"
    archive.write_bytes(_ck12_archive())
    result = pull("ck12", source=str(archive))
    assert result.path.name == "data" and _questions("ck12") == 3
    pulled = read_pulled("ck12")
    assert pulled is not None and pulled.source == "local" and pulled.origin == str(archive.resolve())


def test_a_url_is_pulled_with_from(home: Path, server: tuple[str, dict[str, bytes]]) -> None:
    url, files = server
    files["/mirror/ck12.zip"] = _ck12_archive()
    pull("ck12", source=f"{url}/mirror/ck12.zip")
    assert _questions("ck12") == 3
    result = CliRunner().invoke(app, ["data", "pull", "ck12", "--from", f"{url}/missing.zip"])
    assert result.exit_code == 2 and "(HTTP 404)" in result.output


def test_a_modelscope_download_folder_has_its_zip_unpacked(home: Path, tmp_path: Path) -> None:
    # `modelscope download --dataset modelscope/cmmlu --local_dir DIR` leaves the loading script and the zip.
    folder = tmp_path / "modelscope_cmmlu"
    folder.mkdir()
    (folder / "cmmlu.py").write_text("# loading script\n", encoding="utf-8")
    header = ",Question,A,B,C,D,Answer\n"
    (folder / "cmmlu_v1_0_1.zip").write_bytes(
        _zip(
            {
                f"{split}/agronomy.csv": header + "0,水稻属于____,禾本科,豆科,茄科,十字花科,A\n"
                for split in ("dev", "test")
            }
        )
    )
    cli_ok("data", "pull", "cmmlu", "--from", str(folder))
    assert _questions("cmmlu") == 2


def test_a_folder_of_the_bank_is_used_where_it_is(home: Path, tmp_path: Path) -> None:
    bank = tmp_path / "my_ck12" / "original_data" / "初中" / "数学"
    bank.mkdir(parents=True)
    (bank / "单选.jsonl").write_text(json.dumps(ck12_record(), ensure_ascii=False) + "\n", encoding="utf-8")
    assert pull("ck12", source=str(tmp_path / "my_ck12")).path == (tmp_path / "my_ck12").resolve()
    assert _questions("ck12") == 1
    assert not (home / "data" / "ck12" / "local").exists()


@pytest.mark.parametrize("evil", ["../evil.txt", "/tmp/evil.txt", "a/../../evil.txt", "C:/evil.txt"])
def test_an_archive_member_outside_its_folder_is_refused(tmp_path: Path, evil: str) -> None:
    archive = tmp_path / "evil.zip"
    archive.write_bytes(_zip({"ok/a.txt": "a", evil: "x"}))
    with pytest.raises(InputError, match="would be written outside its folder"):
        unpack(archive, tmp_path / "out" / "target")
    assert not (tmp_path / "out" / "target").exists()
    assert not (tmp_path / "evil.txt").exists() and not list((tmp_path / "out").iterdir())


def test_a_file_that_is_not_a_zip_is_named(tmp_path: Path) -> None:
    archive = tmp_path / "half.zip"
    archive.write_bytes(_ck12_archive()[:100])
    with pytest.raises(InputError, match="not a zip archive"):
        unpack(archive, tmp_path / "target")


def test_gaokao_bench_from_its_github_archive_reads_its_objective_questions(home: Path, tmp_path: Path) -> None:
    from tests.kg.test_importers_gaokao import release

    top = tmp_path / "GAOKAO-Bench-6dbb24f8d8439041e5431c4c184a582182a6ce9c"
    release(top)
    archive = tmp_path / "gaokao.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for file in sorted(top.rglob("*.json")):
            zf.write(file, file.relative_to(tmp_path).as_posix())
    assert pull("gaokao", source=str(archive)).path.name == "Data"
    result = CliRunner().invoke(app, ["kg", "stats", "GaokaoBench", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["by_type"] == {"single_choice": 3, "cloze": 2, "multiple_choice": 1}
    assert "1 subjective-question file(s)" in result.output
