"""A pull killed midway leaves nothing for ever, and two pulls of one archive both end well (#workloss item 3).

Before: a ``data pull`` killed (SIGKILL, a power cut) left its partial download (``.download-PID@HOST.zip``, up to
an archive's size), its half-unpacked folder and its unfinished record in the data cache for ever; a forced
pull killed between moving the old copy aside and putting the new one in place left the bank only under its
hidden name. And a second pull of the same archive that finished unpacking after the first failed with
``Directory not empty``, leaving its unpacked copy behind. The kills are simulated by files named with the id
of a process that has ended; the concurrent pull, by a copy put in place while this one unpacks.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from k12eval.banks import pull
from k12eval.banks._unpack import data_home, unpack
from tests._leftovers import ended_owner
from tests.importer_helpers import ck12_record


def _ck12_zip(path: Path) -> Path:
    """A CK12 release's data as a zip of its own (a copy fetched elsewhere): three 初中数学 questions."""
    lines = "".join(json.dumps(ck12_record(id=f"r{i}"), ensure_ascii=False) + "\n" for i in range(3))
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("original_data/初中/数学/单选.jsonl", lines)
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "home"


def test_what_a_killed_pull_left_is_removed_by_the_next_and_a_bank_moved_aside_goes_back(
    home: Path, tmp_path: Path
) -> None:
    folder = data_home() / "ck12"
    folder.mkdir(parents=True)
    dead, alive = ended_owner(), subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                                                  stdin=subprocess.PIPE)  # fmt: skip
    try:
        (folder / f".download-{dead}.zip").write_bytes(b"PK\x03\x04" + b"\0" * 4096)  # a partial download
        (folder / f".unpacking-local-abc-{dead}" / "original_data").mkdir(parents=True)
        (folder / f".pulled.json.{dead}").write_text('{"name": "ck', encoding="utf-8")
        moved = folder / f".replaced-f23cfed-{dead}"
        (moved / "data").mkdir(parents=True)
        (moved / "data" / "题.jsonl").write_text("{}\n", encoding="utf-8")
        running = folder / f".download-{alive.pid}@{dead.split('@')[1]}.zip"  # a pull still under way
        running.write_bytes(b"PK")

        done = pull("ck12", source=str(_ck12_zip(tmp_path / "ck12.zip")))
        assert (done.path / "初中" / "数学" / "单选.jsonl").is_file()
        left = sorted(p.name for p in folder.iterdir() if p.name.startswith("."))
        assert left == [running.name]
        assert (folder / "f23cfed" / "data" / "题.jsonl").read_text(encoding="utf-8") == "{}\n"  # put back
    finally:
        alive.communicate(b"")


def test_a_pull_whose_copy_another_pull_put_in_place_first_uses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive, target = _ck12_zip(tmp_path / "ck12.zip"), tmp_path / "data" / "ck12" / "local-abc"
    real, other, started = zipfile.ZipFile.open, tmp_path / "other", []

    def other_pull_finishes_first(self: zipfile.ZipFile, *args: object, **kwargs: object) -> object:
        if not started:  # the other pull's rename lands while this one unpacks
            started.append(True)
            with zipfile.ZipFile(archive) as zf:
                zf.extractall(other)
            other.rename(target)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(zipfile.ZipFile, "open", other_pull_finishes_first)
    assert unpack(archive, target) == target
    assert (target / "original_data" / "初中" / "数学" / "单选.jsonl").is_file()
    assert [p.name for p in target.parent.iterdir()] == ["local-abc"]  # no staging folder left
