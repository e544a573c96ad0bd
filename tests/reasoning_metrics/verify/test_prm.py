"""The process reward model detector: the model card's input, the head read at the separators, the threshold rule.

The model tests use a random ``Qwen2ForProcessRewardModel`` built here (tests/reasoning_metrics/tiny_prm.py),
loaded through its remote code exactly as the published checkpoint is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reasoning_metrics.metaeval.detectors import DetectionContext, run_detectors
from reasoning_metrics.metaeval.solution import from_first_error
from reasoning_metrics.models.prm_format import PRM_SEPARATOR, positive_at_separators, prm_messages
from reasoning_metrics.verify.detector import Evidence
from reasoning_metrics.verify.detectors.prm import PRM
from reasoning_metrics.verify.flags import FlagKind
from reasoning_metrics.verify.rules.prm import first_below

SEP = 7


def test_the_positive_probability_is_read_at_each_separator_only() -> None:
    ids = [1, 2, SEP, 3, 4, 5, SEP]
    positive = [0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17]
    assert positive_at_separators(ids, positive, SEP, 2) == [0.13, 0.17]
    moved = [1, 2, 3, SEP, 4, 5, SEP]
    assert positive_at_separators(moved, positive, SEP, 2) == [0.14, 0.17]


def test_already_pooled_output_is_taken_as_it_is_and_a_lost_separator_is_no_score() -> None:
    assert positive_at_separators([1, SEP, 2, SEP], [0.3, 0.9], SEP, 2) == [0.3, 0.9]
    assert positive_at_separators([1, SEP, 2, 3], [0.1, 0.2, 0.3, 0.4], SEP, 2) is None  # truncated
    assert positive_at_separators([1, SEP, 2, SEP], [0.1, 0.2, 0.3], SEP, 2) is None  # neither shape


def test_the_first_step_below_the_threshold_is_the_first_wrong_one() -> None:
    assert first_below([0.9, 0.6, 0.4, 0.1]) == 2
    assert first_below([0.9, 0.5]) == -1  # 0.5 is not below 0.5: the argmax is still the positive label
    assert first_below([0.9, 0.8], threshold=0.85) == 1


def test_the_chat_is_the_model_cards_and_model_text_cannot_add_steps() -> None:
    messages = prm_messages("Q?", ["a = 1", f"b = 2 {PRM_SEPARATOR} c = 3"])
    assert [m["role"] for m in messages] == ["system", "user", "assistant"]
    assert "\\boxed{}" in messages[0]["content"]
    assert messages[2]["content"].count(PRM_SEPARATOR) == 2 and messages[2]["content"].endswith(PRM_SEPARATOR)


def test_the_detector_flags_every_step_below_the_threshold_with_one_minus_p() -> None:
    evidence = Evidence("Q", ["a", "b", "c"], [], prm=[0.9, 0.2, 0.45])
    steps = PRM().find(evidence).steps
    assert [[f.kind for f in s] for s in steps] == [[], [FlagKind.PRM], [FlagKind.PRM]]
    assert [round(s[0].severity, 2) for s in steps if s] == [0.8, 0.55]


@pytest.fixture(scope="module")
def tiny_prm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("transformers")
    from tests.reasoning_metrics.tiny_prm import build_tiny_prm

    return build_tiny_prm(tmp_path_factory.mktemp("tiny-prm"))


@pytest.fixture(scope="module")
def prm_model(tiny_prm: Path) -> Any:
    from reasoning_metrics.models.prm_model import TransformersPRM

    return TransformersPRM(str(tiny_prm), batch_size=2)


SOLUTIONS = [
    ("Tom has 12 apples and buys 5 more. How many?", ["12 + 5 = 17", "The answer is 17."]),
    ("What is 3 + 4?", ["3 + 4 = 7", "So it is 7", "The answer is 7."]),
    ("一次函数 y = kx + b 的图像是什么？", ["是一条直线"]),
]


def _every_token(model: Any, problem: str, steps: list[str]) -> tuple[list[int], list[float]]:
    """The tiny model's positive-label probability at every token, computed here without the adapter."""
    import torch

    from reasoning_metrics.models.prm_model import prm_token_ids

    ids = prm_token_ids(model.tokenizer, problem, steps)
    with torch.no_grad():
        logits = model.model(input_ids=torch.tensor([ids]))[0]
    return ids, torch.softmax(logits, dim=-1)[0, :, 1].tolist()


@pytest.mark.slow
def test_a_random_prm_gives_one_probability_per_step_read_at_the_separator_tokens(prm_model: Any) -> None:
    scored = prm_model.step_probabilities(SOLUTIONS)
    assert [len(p) for p in scored] == [len(steps) for _, steps in SOLUTIONS]
    for (problem, steps), probabilities in zip(SOLUTIONS, scored, strict=True):
        ids, every = _every_token(prm_model, problem, list(steps))
        at = [i for i, token in enumerate(ids) if token == prm_model.separator]
        assert len(at) == len(steps)
        assert probabilities == pytest.approx([every[i] for i in at], abs=1e-5)
        assert probabilities != pytest.approx([every[i - 1] for i in at], abs=1e-3)  # not the token before


def test_moving_a_separator_moves_the_scored_positions(prm_model: Any) -> None:
    problem = "What is 3 + 4?"
    early, late = ["3 +", "4 = 7"], ["3 + 4", "= 7"]
    first, second = prm_model.step_probabilities([(problem, early), (problem, late)])
    ids_early, every_early = _every_token(prm_model, problem, early)
    ids_late, every_late = _every_token(prm_model, problem, late)
    at_early = [i for i, t in enumerate(ids_early) if t == prm_model.separator]
    at_late = [i for i, t in enumerate(ids_late) if t == prm_model.separator]
    assert at_early[0] < at_late[0]  # the first separator comes later
    assert first[0] == pytest.approx(every_early[at_early[0]], abs=1e-5)
    assert second[0] == pytest.approx(every_late[at_late[0]], abs=1e-5)
    assert first[0] != pytest.approx(second[0], abs=1e-3)


def test_batching_and_padding_do_not_change_the_scores(prm_model: Any) -> None:
    together = prm_model.step_probabilities(SOLUTIONS)
    alone = [prm_model.step_probabilities([s])[0] for s in SOLUTIONS]
    for a, b in zip(together, alone, strict=True):
        assert a == pytest.approx(b, abs=1e-4)


def test_a_solution_too_long_for_the_model_is_not_scored(tiny_prm: Path) -> None:
    from reasoning_metrics.models.prm_model import TransformersPRM

    assert TransformersPRM(str(tiny_prm)).max_length == 2048  # the tiny model's max_position_embeddings
    short = TransformersPRM(str(tiny_prm), max_length=40)
    scored = short.step_probabilities([SOLUTIONS[0], ("Q", ["x " * 200])])
    assert scored[1] is None


def test_meta_evaluation_scores_the_prm_and_its_first_wrong_step(prm_model: Any) -> None:
    solutions = [from_first_error(f"s{k}", p, list(s), -1) for k, (p, s) in enumerate(SOLUTIONS)]
    (result, aggregate) = run_detectors(DetectionContext(solutions, prm=prm_model), ["prm", "aggregate"])
    probabilities = prm_model.step_probabilities(SOLUTIONS)
    assert result.native == [first_below(p) for p in probabilities]
    assert result.step_scores == [pytest.approx([1 - x for x in p]) for p in probabilities]
    assert aggregate.unavailable is None
    flagged = [k for k, p in enumerate(probabilities) if first_below(p) >= 0]
    assert all(aggregate.native is not None and aggregate.native[k] >= 0 for k in flagged)


def test_meta_eval_takes_a_prm_on_the_command_line(tiny_prm: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from k12eval.cli import app

    data = tmp_path / "pb.json"
    records = [{"id": f"p{k}", "problem": p, "steps": list(s), "label": -1} for k, (p, s) in enumerate(SOLUTIONS)]
    data.write_text(json.dumps(records), encoding="utf-8")
    args = ["meta-eval", str(data), "--format", "processbench", "--detectors", "prm", "--prm", str(tiny_prm)]
    result = CliRunner().invoke(app, [*args, "--json", "--boot", "0"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["models"]["prm"] == f"prm:transformers:{tiny_prm}"  # whose step verdicts these are
    (prm,) = [d for d in report["detectors"] if d["name"] == "prm"]
    assert prm.get("unavailable") in (None, "")
    bad = CliRunner().invoke(app, [*args[:-1], str(tmp_path / "missing"), "--boot", "0"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


@pytest.mark.real_model
@pytest.mark.slow
def test_score_runs_the_prm_when_given_and_its_header_says_so(tiny_prm: Path, tmp_path: Path, minilm_path: str) -> None:
    from typer.testing import CliRunner

    from k12eval.cli import app
    from tests.reasoning_metrics.written_runs import write_bank, write_run

    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    args = ["score", str(run), "--embedder", minilm_path, "--nli", "none", "--metrics", "faithfulness_step"]
    result = CliRunner().invoke(app, [*args, "--prm", str(tiny_prm)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    for line in lines:
        assessment = line["assessment"]
        assert "prm" in assessment["detectors"] and "prm" not in assessment["unavailable"]
        prm_flags = [f for step in assessment["steps"] for f in step["flags"] if f["kind"] == "prm"]
        assert all(f["severity"] > 0.5 for f in prm_flags)
    again = CliRunner().invoke(app, args)  # without the PRM: not the detectors the file was scored with
    assert again.exit_code == 2 and "scored with other detectors" in again.output
    assert CliRunner().invoke(app, [*args, "--prm", str(tiny_prm)]).exit_code == 0
