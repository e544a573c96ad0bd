"""Every CLI path without the POSIX-only calls Windows lacks (#34 item 4).

Each check runs in a subprocess from which ``os.fchmod``, ``os.O_DIRECTORY``, ``os.O_NOFOLLOW``,
``os.O_NONBLOCK``, ``dir_fd`` support and ``fcntl`` are removed, as on Windows Python 3.11/3.12, and
where ``os.kill`` fails the test: on Windows ``os.kill(pid, 0)`` ends the process. Process liveness
goes through ``OpenProcess``, answered here from ``/proc`` as Windows would answer it. Before: ``run``
crashed writing ``run.json`` (``os.fchmod``), ``report`` crashed (``os.O_DIRECTORY``), every ``serve``
request failed, and a report's clean-up signalled unrelated processes with ``os.kill``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._leftovers import here
from tests._runs import SMALL_ANSWERS, small_bank, write_answers, write_bank, write_run

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]

NO_POSIX = f"""
import ctypes, json, os, sys
sys.path.insert(0, {str(REPO)!r})
sys.modules["fcntl"] = None
for name in ("fchmod", "O_DIRECTORY", "O_NOFOLLOW", "O_NONBLOCK"):
    delattr(os, name)
os.supports_dir_fd = set()
def kill(pid, sig):
    raise AssertionError(f"os.kill({{pid}}, {{sig}}): on Windows it ends the process")
os.kill = kill
class Kernel32:
    '''OpenProcess, GetExitCodeProcess and CloseHandle, answered as Windows would (from /proc).'''
    def OpenProcess(self, access, inherit, pid):
        return pid if os.path.exists(f"/proc/{{pid}}") else 0
    def GetExitCodeProcess(self, handle, code):
        code._obj.value = 259  # STILL_ACTIVE
        return 1
    def CloseHandle(self, handle):
        return 1
ctypes.WinDLL = lambda name, use_last_error=False: Kernel32()
ctypes.get_last_error = lambda: 87  # ERROR_INVALID_PARAMETER: no such process
import runners.files
runners.files.WINDOWS = True
from k12eval.cli import app
def cli(*args):
    sys.argv = ["k12eval", *args]
    try:
        app()
    except SystemExit as exc:
        return exc.code or 0
    return 0
"""


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", NO_POSIX + code], cwd=cwd, capture_output=True, text=True, timeout=600)


def _answers(tmp_path: Path) -> Path:
    return write_answers(tmp_path / "answers.jsonl", small_bank())


def test_the_emulation_removes_what_windows_lacks(tmp_path: Path) -> None:
    probe = _python(
        "print(json.dumps([hasattr(os, n) for n in ('fchmod', 'O_DIRECTORY', 'O_NOFOLLOW')] + [bool(os.supports_dir_fd)]))\n"
        "import runners.files as f\ntry:\n    os.kill(1, 0)\nexcept AssertionError:\n    print('no kill')\n"
        f"print(f.process_alive(os.getppid()), f.process_alive({2**22 + 7}))",
        tmp_path,
    )
    assert probe.stdout.splitlines() == ["[false, false, false, false]", "no kill", "True False"], probe.stderr


def test_run_resume_merge_and_report_without_posix_calls(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", list(small_bank().values()))
    replay = ["-m", "r", "-b", "replay", "-B", f"path={_answers(tmp_path)}"]
    dead = 2**22 + 7  # above Linux's default pid_max: no process has it
    alive = os.getpid()  # this test's process, the subprocess's parent
    (tmp_path / f".report.build-{here(dead)}-a").mkdir()  # left by a killed build: removed
    (tmp_path / f".report.build-{here(alive)}-b").mkdir()  # a build still running: kept
    code = f"""
codes = [cli("run", {str(bank)!r}, *{replay!r}, "-o", {str(tmp_path / "run")!r}),
         cli("run", {str(bank)!r}, *{replay!r}, "-o", {str(tmp_path / "run")!r}),
         cli("merge", {str(tmp_path / "run")!r}, "-o", {str(tmp_path / "merged")!r}),
         cli("report", {str(tmp_path / "run")!r}, "-o", {str(tmp_path / "report")!r}, "--no-plots", "--xlsx"),
         cli("report", {str(tmp_path / "run")!r}, "-o", {str(tmp_path / "report")!r}, "--no-plots")]
print(json.dumps(codes))
"""
    done = _python(code, tmp_path)
    assert done.stdout.strip().splitlines()[-1] == "[0, 0, 0, 0, 0]", done.stderr
    assert "Traceback" not in done.stderr
    assert len((tmp_path / "run" / "records.jsonl").read_text(encoding="utf-8").splitlines()) == len(small_bank())
    assert (tmp_path / "report" / "index.html").is_file() and (tmp_path / "merged" / "run.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".report.")) == [
        f".report.build-{here(alive)}-b"
    ]


def test_score_without_posix_calls(tmp_path: Path) -> None:
    code = f"""
import reasoning_metrics.run_scoring as scoring
from pathlib import Path
from tests.reasoning_metrics.fakes import HashEncoder, RuleNLI
from tests.reasoning_metrics.written_runs import with_models, write_bank, write_run
run = write_run(Path({str(tmp_path)!r}) / "run", write_bank(Path({str(tmp_path)!r}) / "bank"))
real, fakes = scoring.score_run, {{"encoder": HashEncoder(), "nli": RuleNLI()}}
scoring.score_run = with_models(real, fakes)
print(json.dumps([cli("score", str(run)), cli("score", str(run))]))
"""
    done = _python(code, REPO)
    assert done.stdout.strip().splitlines()[-1] == "[0, 0]", done.stderr
    assert "Traceback" not in done.stderr
    assert len((tmp_path / "run" / "scores.jsonl").read_text(encoding="utf-8").splitlines()) == 2


def test_kg_stats_and_export_without_posix_calls(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", list(small_bank().values()))
    code = f"""
print(json.dumps([cli("kg", "stats", {str(bank)!r}), cli("kg", "export", {str(bank)!r}, "-o", "g.graphml"),
                  cli("kg", "export", {str(bank)!r}, "-o", "g.json")]))
"""
    done = _python(code, tmp_path)
    assert done.stdout.strip().splitlines()[-1] == "[0, 0, 0]", done.stderr
    assert (tmp_path / "g.graphml").stat().st_size > 0 and (tmp_path / "g.json").stat().st_size > 0


def test_serve_without_posix_calls_serves_files_and_refuses_links(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", list(small_bank().values()))
    run = write_run(tmp_path / "run", small_bank(), SMALL_ANSWERS, bank=bank)
    from reports import write_report

    report = tmp_path / "report"
    write_report([run], report, plots=False)
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    (report / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "index.html").write_text("secret", encoding="utf-8")
    (report / "elsewhere").symlink_to(tmp_path / "outside")
    code = f"""
import http.client, threading
from pathlib import Path
from k12eval.cli._serve import report_server
server, url = report_server(Path({str(report)!r}), 0)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = server.server_address[1]
def get(path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path)
    response = connection.getresponse()
    return [response.status, len(response.read())]
print(json.dumps({{p: get(p) for p in ["/", "/index.html", "/nodes.csv", "/tables/cmmlu_categories.md", "/leak.txt",
                                      "/elsewhere/index.html", "/../secret.txt", "/C:x", "/missing"]}}))
server.shutdown()
server.server_close()
"""
    done = _python(code, tmp_path)
    assert "Traceback" not in done.stderr, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert {p: status for p, (status, _) in got.items()} == {
        "/": 200, "/index.html": 200, "/nodes.csv": 200, "/tables/cmmlu_categories.md": 200, "/leak.txt": 404,
        "/elsewhere/index.html": 404, "/../secret.txt": 400, "/C:x": 404, "/missing": 404,
    }  # fmt: skip
    assert got["/index.html"][1] == (report / "index.html").stat().st_size
