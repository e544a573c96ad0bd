"""The small findings of #32 (item 6): each is one located line, never a traceback, never a silent clamp.

Before: ``--variant options-0`` ended in a traceback; ``--limit -1`` answered 62 of 63 questions and
``--shots -1`` took every exemplar; ``score`` on a full disk did not name the file; ``kg export`` to
GraphML with NUL or ESC in a name exited 0 and wrote XML that could not be read back; a browser closing
a connection early printed a ``BrokenPipeError`` traceback in ``serve``; ids with a leading tab, CR or
space were stripped on import but not in a replayed file (6 of 18 questions "no recorded output").
``run -o DIR`` over a foreign ``summary.json`` and ``run -o ''`` are in tests/reports/test_out_never_clobbers.py.
"""

from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from tests._runs import question, write_answers, write_bank

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = [
    question(f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题：下列函数中是一次函数的是") for i in range(6)
]


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    return write_answers(tmp_path / "answers.jsonl", [q.id for q in QUESTIONS])


def _one_error(result: Any) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("error:")]
    return line


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        (["--variant", "options-0"], "error: --variant: unknown variant 'options-0'"),
        (["--variant", "options-x"], "error: --variant: unknown variant 'options-x'"),
        (["--limit", "-1"], "error: --limit -1: give a count of questions (100) or a fraction of them between 0 and 1"),
        (["--limit", "0"], "error: --limit 0: give a count of questions (100) or a fraction of them between 0 and 1"),
        (["--limit", "inf"], "error: --limit inf: give a count of questions"),  # an OverflowError before
        (["--shots", "-1"], "error: --shots -1: give a number of at least 0"),
        (["--token-budget", "-5"], "error: --token-budget -5: give a number of at least 1"),
        (["--max-tokens", "0"], "error: --max-tokens 0: give a number of at least 1"),
        (["--temperature", "-1"], "error: --temperature -1.0: give a number of at least 0"),
        (["--top-p", "2"], "error: --top-p 2.0: give a number above 0 and at most 1"),
    ],
)
def test_a_number_or_variant_out_of_range_is_refused_by_name(
    answers: Path, tmp_path: Path, option: list[str], expected: str
) -> None:
    bank = write_bank(tmp_path / "bank", QUESTIONS)
    result = CliRunner().invoke(
        app, ["run", str(bank), "-m", "r", "-b", "replay", "-B", f"path={answers}", "-o", str(tmp_path / "r"), *option]
    )
    assert _one_error(result).startswith(expected)
    assert not (tmp_path / "r").exists()  # refused before the run folder was made


@pytest.mark.parametrize(
    ("option", "expected"),
    [  # before: every question recorded as a malformed answer (UnboundLocalError; sleep length must be...)
        ("max_retries=-1", "max_retries must be a whole number of at least 0, got -1"),
        ("backoff_s=-1", "backoff_s must be a number of seconds of at least 0, got -1"),
        ("max_backoff_s=-2", "max_backoff_s must be a number of seconds of at least 0, got -2"),
        ("timeout_s=0", "timeout_s must be a number of seconds above 0, got 0"),  # every request timed out
    ],
)
def test_an_openai_backend_option_out_of_range_is_refused_before_any_request(
    tmp_path: Path, option: str, expected: str
) -> None:
    bank = write_bank(tmp_path / "bank", QUESTIONS)
    args = ["run", str(bank), "-m", "m", "-b", "openai", "-B", "base_url=http://127.0.0.1:9", "-B", option]
    result = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "r")])
    assert expected in _one_error(result)
    assert not (tmp_path / "r" / "records.jsonl").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [  # before: a silent wrong number or empty result, a traceback, or no end
        (
            ["meta-eval", "{pb}", "-f", "processbench", "--limit", "-1"],
            "error: --limit -1: give a number of at least 1",
        ),
        (["meta-eval", "{pb}", "-f", "processbench", "--limit", "0"], "error: --limit 0: give a number of at least 1"),
        (["meta-eval", "{pb}", "-f", "processbench", "--seed", "-1"], "error: --seed -1: give a number from 0 to"),
        (["meta-eval", "{pb}", "-f", "processbench", "--boot", str(10**11)], "error: --boot 100000000000: give"),
        (["calibrate", "{pb}", "-f", "processbench", "-o", "{tmp}/c.json", "--seed", "-1"], "error: --seed -1"),
        (["diagnostics", "make", "{bank}", "-o", "{tmp}/d.jsonl", "--limit", "-1"], "error: --limit -1: give"),
        (["diagnostics", "make", "{bank}", "-o", "{tmp}/d.jsonl", "--limit", "0"], "error: --limit 0: give"),
        (["report", "{run}", "-o", "{tmp}/rep", "--hit-k", "0"], "error: --hit-k 0: give a number of at least 1"),
        (["report", "{run}", "-o", "{tmp}/rep", "--hit-k", "-1"], "error: --hit-k -1: give a number of at least 1"),
    ],
)
def test_counts_no_command_can_use_are_refused_by_name(
    answers: Path, tmp_path: Path, args: list[str], expected: str
) -> None:
    bank = write_bank(tmp_path / "bank", QUESTIONS)
    run = tmp_path / "run"
    done = CliRunner().invoke(
        app, ["run", str(bank), "-m", "r", "-b", "replay", "-B", f"path={answers}", "-o", str(run)]
    )
    assert done.exit_code == 0, done.output
    paths = {"pb": str(REPO / "tests" / "fixtures" / "metaeval" / "processbench_math.json"), "tmp": str(tmp_path)}
    paths |= {"bank": str(bank), "run": str(run)}
    result = CliRunner().invoke(app, [arg.format(**paths) for arg in args])
    assert _one_error(result).startswith(expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answers.jsonl", "bank", "run"]  # nothing written


def test_ids_with_leading_whitespace_match_in_the_replayed_file_as_on_import(tmp_path: Path) -> None:
    leads = ["\t", "\r", " ", "\u3000", "\t \r", ""]
    qs = [question(f"{lead}id-{i}", "数学", "函数", "一次函数") for i, lead in enumerate(leads)]
    bank = write_bank(tmp_path / "bank", qs)  # the bank's ids carry the whitespace...
    replay = tmp_path / "replay.jsonl"
    with replay.open("w", encoding="utf-8") as handle:  # ...and so do the replayed file's, another way round
        for i, lead in enumerate(leads):
            handle.write(json.dumps({"id": f"id-{i}{lead}" if i % 2 else f"{lead}id-{i}", "response": "A"}) + "\n")
    out = tmp_path / "r"
    result = CliRunner().invoke(
        app, ["run", str(bank), "-m", "r", "-b", "replay", "-B", f"path={replay}", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(r["question_id"] for r in records) == [f"id-{i}" for i in range(len(leads))]
    assert [r["parse_status"] for r in records] == ["ok"] * len(leads)


def test_graphml_with_nul_and_esc_in_names_reads_back(tmp_path: Path) -> None:
    qs = [
        question("q\x1b1", "数学", "函\x00数", "一次\x1b函数", stem="题\x07干"),
        question("q2", "数学", "函数", "二次函数"),
    ]
    bank = write_bank(tmp_path / "bank", qs)
    out = tmp_path / "g.graphml"
    result = CliRunner().invoke(app, ["kg", "export", str(bank), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "written as escapes" in result.output
    graph = nx.read_graphml(out)
    assert {"l1:数学/函\\x00数", "l2:数学/函\\x00数/一次\\x1b函数", "q:q\\x1b1", "q:q2"} <= set(graph.nodes)
    exact = tmp_path / "g.json"
    assert CliRunner().invoke(app, ["kg", "export", str(bank), "-o", str(exact)]).exit_code == 0
    assert "l1:数学/函\x00数" in {n["id"] for n in json.loads(exact.read_text(encoding="utf-8"))["nodes"]}


FULL_DISK = """
import functools, resource, signal, sys
from pathlib import Path
import reasoning_metrics.run_scoring as scoring
from tests.reasoning_metrics.fakes import HashEncoder, RuleNLI
from tests.reasoning_metrics.written_runs import with_models, write_bank, write_run
run = write_run(Path(sys.argv[1]) / "run", write_bank(Path(sys.argv[1]) / "bank"))
real, fakes = scoring.score_run, {"encoder": HashEncoder(), "nli": RuleNLI()}
scoring.score_run = with_models(real, fakes)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # every write past it fails, as on a full disk
from k12eval.cli import app
sys.argv = ["k12eval", "score", str(run)]
app()
"""


@pytest.mark.slow
@pytest.mark.parametrize("limit", [500, 2000, 3000, 6000])
def test_score_on_a_full_disk_names_the_file(tmp_path: Path, limit: int) -> None:
    """The score file's buffered line failed again when the file was closed, without its name."""
    done = subprocess.run([sys.executable, "-c", FULL_DISK, str(tmp_path), str(limit)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    [line] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    run = tmp_path / "run"
    named = {f"error: {run / name}: File too large" for name in ("scores.json", "scores.jsonl")}
    work = [p.name for p in run.glob("scores.work-*.sqlite")]  # the job's model outputs, kept until it ends
    note = re.fullmatch(rf"error: {re.escape(str(run))}/scores\.work-[0-9a-f]{{8}}\.json: File too large", line)
    named |= {line} if note else set()  # the note saying what made them, written before them
    assert line in named or (
        work
        and line.startswith(f"error: {run / work[0]}: cannot keep the job's work file")
        and "--no-cache" not in line
    ), line


@pytest.mark.slow
def test_serve_ends_a_request_quietly_when_the_browser_closes_early(tmp_path: Path) -> None:
    report = tmp_path / "report"
    report.mkdir()
    (report / "index.html").write_bytes(b"<p>" + b"x" * (16 << 20) + b"</p>")  # larger than any socket buffer
    proc = subprocess.Popen([sys.executable, "-m", "k12eval", "serve", str(report), "--port", "0"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().split("http://127.0.0.1:", 1)[1].split("/", 1)[0])
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
                client.sendall(f"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode("ascii"))
                assert client.recv(64).startswith(b"HTTP/1.")
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset, at once
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("HEAD", "/index.html")
        assert connection.getresponse().status == 200  # the server goes on
        connection.close()
    finally:  # on Ctrl-C the server joins the interrupted requests' threads: their output is in stderr
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr and "ConnectionResetError" not in stderr, (
        stderr
    )


def test_the_serve_handler_names_other_request_errors_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from k12eval.cli._serve import _ReportServer

    server = _ReportServer(("127.0.0.1", 0), lambda *args: None)  # type: ignore[arg-type]
    try:
        for error in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset"), ValueError("bad")):
            try:
                raise error
            except Exception:
                server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()
    assert capsys.readouterr().err == "warning: a request failed (ValueError: bad); the server goes on\n"


def test_a_variant_error_is_an_input_error() -> None:
    from kg.errors import InputError
    from runners.variants import VariantError, parse_variant

    with pytest.raises(InputError):
        parse_variant("options-1")
    assert issubclass(VariantError, ValueError)
