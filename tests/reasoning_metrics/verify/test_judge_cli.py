"""``k12eval meta-eval --judge-model``: over real HTTP (the OpenAI-protocol test server), replayed, and resumed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.backends.base import GenerationRequest
from runners.backends.transformers import TransformersBackend
from runners.testing.openai_server import Faults, OpenAIServer
from tests.scripted import ScriptedBackend, prompt_text

runner = CliRunner()

# problem -> (label, what the judge answers).  Hand-scored below.
SCRIPT: dict[str, tuple[int, str]] = {
    "Ann has 3 bags of 4 pears. How many pears?": (1, "Step 1 is fine.\nStep 2 is wrong: 3 × 4 = 12.\n\\boxed{2}"),
    "Ben walks 2 km a day for 5 days. How far?": (0, "The first mistake is in step 1, 2 + 5 is not the distance."),
    "Cat buys 6 eggs and breaks 2. How many are left?": (-1, "All steps are correct. \\boxed{-1}"),
    "Dan has 10 coins and spends 4. How many remain?": (-1, "I cannot tell."),
    "Eve saves 5 dollars a week for 4 weeks. How much?": (1, "\\boxed{7}"),  # no step 7: unreadable
    "Fay reads 8 pages twice. FAIL-ME How many pages?": (2, "\\boxed{3}"),  # the server always fails it
    "Gus has 9 cards and gets 3. How many cards?": (-1, "<think>Step 1 looks wrong, let me"),  # unfinished
}
STEPS = ["First line of the work.", "Second line of the work.", "The answer is 12."]


def _scripted(request: GenerationRequest) -> str:
    """The judge's answer to a problem, from :data:`SCRIPT`."""
    user = prompt_text(request)
    return next(text for problem, (_, text) in SCRIPT.items() if problem in user)


def write_data(path: Path) -> Path:
    records = [
        {"id": f"s{k}", "generator": "test", "problem": p, "steps": STEPS, "final_answer_correct": y < 0, "label": y}
        for k, (p, (y, _)) in enumerate(SCRIPT.items())
    ]
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    # Every prompt's first attempt fails (429, 500 or a dropped connection): retries must recover them.
    faults = Faults(flaky=1, fail_marker="FAIL-ME")
    with OpenAIServer(cast(TransformersBackend, ScriptedBackend(_scripted, model="scripted-judge")), faults) as running:
        yield running


def judge_report(args: list[str]) -> dict[str, Any]:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    return next(d for d in report["detectors"] if d["name"] == "judge")


def test_judge_over_http_with_failures_and_unreadable_answers(tmp_path: Path, server: OpenAIServer) -> None:
    data, log = write_data(tmp_path / "pb.json"), tmp_path / "judge.jsonl"
    base = ["meta-eval", str(data), "-f", "processbench", "--encoder", "none", "-d", "judge,aggregate", "--json"]
    http = ["--judge-model", "scripted-judge", "--judge-backend", "openai", "--judge-log", str(log)]
    options = ["-J", f"base_url={server.base_url}", "-J", "max_retries=2", "-J", "backoff_s=0.01", "-J", "api_key=t"]
    judge = judge_report([*base, *http, *options, "--boot", "20"])
    # erroneous: s0 right, s1 right, s4 unreadable, s5 failed -> 2/4; correct: s2 right, s3 and s6 unreadable -> 1/3
    assert judge["acc_error"] == pytest.approx(0.5)
    assert judge["acc_correct"] == pytest.approx(1 / 3)
    assert judge["f1"] == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))
    assert judge["auroc"] == 1.0  # over the three solutions with a verdict: s0, s1 flagged, s2 not
    assert "4 of 7 without a verdict" in judge["orientation"]
    lines = {line["id"]: line for line in map(json.loads, log.read_text(encoding="utf-8").splitlines())}
    assert len(lines) == 7 and lines["s5"]["response"] is None and "500" in lines["s5"]["error"]
    assert lines["s5"]["first_error"] is None and lines["s4"]["first_error"] is None
    assert all(lines[k]["response"] for k in lines if k != "s5")
    assert max(server.attempts.values()) == 3  # the failing prompt: one try and two retries

    asked = sum(server.attempts.values())
    again = judge_report([*base, *http, *options, "--boot", "20"])
    assert sum(server.attempts.values()) == asked  # resumed from the log: nothing asked twice
    assert again == judge

    replay = ["--judge-model", str(log), "--judge-backend", "replay"]
    assert judge_report([*base, *replay, "--boot", "20"])["f1"] == judge["f1"]


def test_a_judge_log_of_another_model_is_refused(tmp_path: Path, server: OpenAIServer) -> None:
    data, log = write_data(tmp_path / "pb.json"), tmp_path / "judge.jsonl"
    log.write_text(json.dumps({"id": "s0", "response": "\\boxed{1}", "model": "m1", "backend": "openai"}) + "\n")
    args = ["meta-eval", str(data), "-f", "processbench", "--encoder", "none", "-d", "judge", "--judge-log", str(log)]
    result = runner.invoke(app, [*args, "--judge-model", "m2", "--judge-backend", "openai", "-J", "base_url=x"])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {log}, line 1, field 'model'") and "'m1'" in result.output


def test_unknown_judge_backend_or_option_is_a_user_error(tmp_path: Path) -> None:
    data = write_data(tmp_path / "pb.json")
    base = ["meta-eval", str(data), "-f", "processbench", "--encoder", "none", "-d", "judge"]
    for extra in (["--judge-backend", "magic"], ["--judge-backend", "openai", "-J", "colour=red"], ["-J", "x"]):
        result = runner.invoke(app, [*base, "--judge-model", "m", *extra])
        assert result.exit_code == 2, (extra, result.output)
        assert result.output.startswith("error: ") and "Traceback" not in result.output


@pytest.mark.slow
@pytest.mark.real_model
def test_tiny_qwen2_judge_end_to_end_through_transformers(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from runners.testing.tiny_model import build_tiny_qwen2

    model = build_tiny_qwen2(tmp_path / "tiny")
    data, log = write_data(tmp_path / "pb.json"), tmp_path / "judge.jsonl"
    args = ["meta-eval", str(data), "-f", "processbench", "--encoder", "none", "-d", "judge", "--json", "--boot", "0"]
    judge = judge_report([*args, "--judge-model", str(model), "--judge-max-tokens", "12", "--judge-log", str(log)])
    assert judge["unavailable"] is None and judge["f1"] is not None
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 7 and all(isinstance(line["response"], str) and line["error"] is None for line in lines)
    assert {line["backend"] for line in lines} == {"transformers"}


def test_key_value_options_become_scalars() -> None:
    from k12eval.cli._common import parse_pairs

    parsed = parse_pairs(["n=3", "t=0.5", "chat=false", "base_url=http://h:1/v1?a=b"], "-J")
    assert parsed == {"n": 3, "t": 0.5, "chat": False, "base_url": "http://h:1/v1?a=b"}
