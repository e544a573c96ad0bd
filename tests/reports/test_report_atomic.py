"""A report folder is replaced whole or not at all: failures mid-build leave the previous one byte-identical (#14 finding 4)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

import reports.html
from k12eval.cli import app
from reports import write_report
from reports.staging import MARKER, MARKER_TEXT
from tests._leftovers import elsewhere, ended_owner
from tests._runs import SMALL_ANSWERS, Answer, small_bank, write_bank, write_run


@pytest.fixture
def run(tmp_path: Path) -> Path:
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    return write_run(tmp_path / "run", bank, SMALL_ANSWERS, bank=root)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def leftovers(parent: Path, name: str) -> list[str]:
    return [p.name for p in parent.iterdir() if p.name.startswith(f".{name}.")]


@pytest.mark.slow
def test_an_error_mid_build_leaves_the_previous_report(run: Path, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "report"
    write_report([run], out)
    before = snapshot(out)
    assert "index.html" in before and "plots/heatmap.png" in before

    def full_disk(*args: object, **kwargs: object) -> str:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(reports.html, "write_page", full_disk)  # after CSVs and plots are written
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(out), "--title", "second"])
    assert result.exit_code == 2 and result.output.startswith("error: ") and "Traceback" not in result.output
    assert snapshot(out) == before
    assert leftovers(tmp_path, "report") == []


@pytest.mark.slow
def test_a_file_size_limit_mid_write_leaves_the_previous_report(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    write_report([run], out, plots=False)
    before = snapshot(out)
    # Every write past the limit fails with EFBIG (Python ignores SIGXFSZ): the page is torn mid-write.
    limit = len(before["index.html"]) // 2
    code = (
        "import resource, sys; from k12eval.cli import app; "
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
        f"sys.argv = ['k12eval', 'report', {str(run)!r}, '-o', {str(out)!r}, '--no-plots', '--title', 'new']; app()"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path.cwd(), timeout=600)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and "File too large" in done.stderr and "Traceback" not in done.stderr
    assert snapshot(out) == before
    assert leftovers(tmp_path, "report") == []


@pytest.mark.slow
def test_a_new_report_replaces_every_file_of_the_old_one(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    write_report([run], out)
    assert (out / "plots").is_dir()
    write_report([run], out, plots=False, title="second")
    assert not (out / "plots").exists()  # a file the first build wrote and the second did not (a file no report
    # wrote is the user's: tests/reports/test_out_never_clobbers.py)
    assert "second" in (out / "index.html").read_text(encoding="utf-8")
    assert leftovers(tmp_path, "report") == []


def test_a_folder_of_other_files_is_never_replaced(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work", encoding="utf-8")
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(out)])
    assert result.exit_code == 2 and "no report" in result.output
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]


def test_a_report_folder_holding_a_run_is_never_replaced(tmp_path: Path) -> None:
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    out = tmp_path / "report"
    write_report([write_run(tmp_path / "a", bank, SMALL_ANSWERS, bank=root)], out, plots=False)
    inner = write_run(out / "run", bank, SMALL_ANSWERS, bank=root)
    result = CliRunner().invoke(app, ["report", str(inner), "--out", str(out)])
    assert result.exit_code == 2 and "choose another --out" in result.output
    assert (inner / "records.jsonl").is_file()


def test_a_killed_build_leaves_no_folder_behind_for_long(run: Path, tmp_path: Path) -> None:
    abandoned = tmp_path / f".report.build-{ended_owner()}-x1y2"
    abandoned.mkdir()
    (abandoned / "index.html").write_text("", encoding="utf-8")
    (abandoned / MARKER).write_text(MARKER_TEXT, encoding="utf-8")  # a build writes its marker first
    write_report([run], tmp_path / "report", plots=False)
    assert leftovers(tmp_path, "report") == []


def test_a_build_of_another_machine_is_never_taken_for_a_killed_one(run: Path, tmp_path: Path) -> None:
    """Before: a build's name carried its process id alone, asked of this machine: a report folder on a shared
    filesystem lost the build another machine was writing into it (its id runs nothing here)."""
    dead = ended_owner()
    builds = [f".report.build-{elsewhere(dead)}-x1y2", f".report.build-{dead.split('@')[0]}-x3y4"]  # an older k12eval's
    for name in builds:
        (tmp_path / name).mkdir()
        (tmp_path / name / MARKER).write_text(MARKER_TEXT, encoding="utf-8")  # a build writes its marker first
    write_report([run], tmp_path / "report", plots=False)
    assert sorted(leftovers(tmp_path, "report")) == sorted(builds)


@pytest.mark.slow
def test_readers_never_see_a_partial_or_mixed_report(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    write_report([run], out, plots=False, title="build-0")
    stop = threading.Event()
    seen: list[str] = []
    problems: list[str] = []

    def read() -> None:
        while not stop.is_set():
            try:
                folder = os.open(out, os.O_RDONLY | os.O_DIRECTORY)  # one folder, whatever is renamed meanwhile
            except FileNotFoundError:
                problems.append("report folder missing")
                continue
            try:
                page = _read_at(folder, "index.html")
                summary = _read_at(folder, "summary.json")
                nodes = _read_at(folder, "nodes.csv")
            except FileNotFoundError as exc:
                # Only a retired folder (swapped out, being removed) may lose files under a reader.
                if _still_named(folder, out):
                    problems.append(f"missing {exc.filename}")
                continue
            finally:
                os.close(folder)
            title = page.split("<title>", 1)[1].split("<", 1)[0] if "<title>" in page else "torn page"
            if f'"title": "{title}"' not in summary or not page.rstrip().endswith("</html>") or not nodes:
                problems.append(f"mixed or torn build: {title!r}")
            seen.append(title)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(1, 7):
            write_report([run], out, plots=False, title=f"build-{i}")
    finally:
        stop.set()
        reader.join()
    assert problems == []
    assert len(set(seen)) >= 2  # the reader did see the report change under it


def _still_named(folder: int, out: Path) -> bool:
    try:
        return os.stat(out).st_ino == os.fstat(folder).st_ino
    except FileNotFoundError:
        return False


def _read_at(folder: int, name: str) -> str:
    fd = os.open(name, os.O_RDONLY, dir_fd=folder)
    with os.fdopen(fd, encoding="utf-8") as handle:
        return handle.read()


def test_answers_from_a_second_build_never_mix_with_the_first(tmp_path: Path) -> None:
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    first = write_run(tmp_path / "a", bank, {"q1": Answer(True)}, bank=root)
    out = tmp_path / "report"
    write_report([first], out, plots=False)
    second = write_run(tmp_path / "b", bank, {"q1": Answer(False, extracted=["B"])}, bank=root)
    write_report([second], out, plots=False)
    assert (out / "nodes.csv").read_text(encoding="utf-8").count("\nb,") > 0
    assert "\na," not in (out / "nodes.csv").read_text(encoding="utf-8")


def test_without_an_atomic_exchange_the_old_report_is_moved_aside_then_removed(
    run: Path, tmp_path: Path, monkeypatch
) -> None:
    import reports.staging as staging

    assert staging._exchange(tmp_path / "run", tmp_path / "bank")  # this system swaps in one step...
    staging._exchange(tmp_path / "run", tmp_path / "bank")
    monkeypatch.setattr(staging, "_exchange", lambda a, b: False)  # ...others rename twice
    out = tmp_path / "report"
    write_report([run], out, plots=False, title="first")
    write_report([run], out, plots=False, title="second")
    assert "<title>second" in (out / "index.html").read_text(encoding="utf-8")
    assert leftovers(tmp_path, "report") == []


@pytest.mark.parametrize(
    ("target", "name"),
    [("pandas.DataFrame.to_csv", "nodes.csv"), ("os.fsync", "nodes.csv")],
)
def test_a_full_disk_names_the_file_of_the_report_it_was_writing(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, name: str
) -> None:
    """write() and fsync() errors carry no file name; the line must say which file (#28 item 6)."""

    def full_disk(*args: object, **kwargs: object) -> str:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(target, full_disk)
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(out), "--no-plots"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert [line for line in result.output.splitlines() if line.startswith("error:")] == [
        f"error: {out.resolve() / name}: No space left on device"
    ]


def test_report_files_and_folders_follow_the_umask(run: Path, tmp_path: Path) -> None:
    """Not 0600/0700 whatever the umask: a teacher's shared folder stays readable (#28 item 6)."""
    old = os.umask(0o022)
    try:
        out = tmp_path / "report"
        write_report([run], out, plots=False)
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o755
    assert {p.stat().st_mode & 0o777 for p in out.rglob("*") if p.is_file()} == {0o644}
