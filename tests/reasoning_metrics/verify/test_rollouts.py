"""Math-Shepherd rollouts: k continuations per step prefix, graded against the gold answer as ``run`` grades."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasoning_metrics.metaeval.detectors import DetectionContext, rollout_tasks, run_detectors
from reasoning_metrics.metaeval.solution import from_first_error
from reasoning_metrics.verify.detector import Evidence
from reasoning_metrics.verify.detectors.rollouts import Rollouts
from reasoning_metrics.verify.flags import FlagKind
from reasoning_metrics.verify.rules.rollouts import (
    NO_GOLD,
    RolloutTask,
    first_dead_end,
    generation_count,
    gold_question,
    reaches_gold,
    rollout_shares,
)
from runners.backends.base import GenerationRequest
from tests.scripted import ScriptedBackend, prompt_text

PROBLEM = "Tom has 12 apples and buys 5 more. How many apples does he have?"
STEPS = ["He buys 5 more: 12 + 5 = 18", "So he has 18 apples", "The answer is 18."]
GOLD = gold_question("q", PROBLEM, ["17"])


def _recovers_until_the_slip(request: GenerationRequest) -> str:
    """A continuer that finds 17 unless the prefix it is given already holds the slip (18)."""
    return "Then \\boxed{18}" if "18" in prompt_text(request) else "12 + 5 = 17\nThe answer is: 17"


def test_the_first_prefix_after_which_no_continuation_reaches_the_gold_is_the_suspect() -> None:
    backend = ScriptedBackend(_recovers_until_the_slip)
    tasks = [RolloutTask(PROBLEM, ["Tom starts with 12 apples", *STEPS], GOLD)]
    (result,) = rollout_shares(tasks, backend, k=3)
    assert result.shares == [1.0, 0.0, 0.0, 0.0]
    assert first_dead_end(result.shares) == 1
    assert len(backend.requests) == generation_count(tasks, 3) // 3 == 4
    assert {r.params.n for r in backend.requests} == {3} and backend.batches == [4]  # one batch, n = k


def test_a_solution_without_gold_is_not_rolled_out_and_costs_nothing() -> None:
    backend = ScriptedBackend(_recovers_until_the_slip)
    tasks = [RolloutTask(PROBLEM, STEPS, None), RolloutTask(PROBLEM, STEPS, GOLD)]
    results = rollout_shares(tasks, backend, k=2)
    assert (results[0].shares, results[0].reason) == (None, NO_GOLD)
    assert results[1].shares == [0.0, 0.0, 0.0]
    assert generation_count(tasks, 2) == 6 and len(backend.requests) == 3


def test_a_failed_prefix_has_no_share_and_is_not_a_dead_end() -> None:
    backend = ScriptedBackend(lambda r: None if r.id.endswith(":0") else "\\boxed{17}")
    (result,) = rollout_shares([RolloutTask(PROBLEM, STEPS[:2], GOLD)], backend, k=2)
    assert result.shares == [None, 1.0]
    assert first_dead_end([None, 0.5, 0.0]) == 2 and first_dead_end([None, 1.0]) == -1


def test_the_gold_is_read_from_the_prefix_when_the_continuation_states_none() -> None:
    assert GOLD is not None
    assert reaches_gold(GOLD, ["12 + 5 = 17", "The answer is \\boxed{17}"], "Done.")
    assert reaches_gold(GOLD, ["12 + 5 = 17", "The answer is \\boxed{17}"], "Done.\nNothing more to do.")
    assert not reaches_gold(GOLD, ["12 + 5 = 18", "The answer is \\boxed{18}"], "Done.")
    assert reaches_gold(GOLD, ["12 + 5 = 18"], "No: 12 + 5 = 17, the answer is \\boxed{17}")


def test_a_choice_gold_without_options_is_no_gold() -> None:
    assert gold_question("c", "Which?", ["B"], "single_choice") is None
    assert gold_question("c", "Which?", ["17"], "no_such_type") is None


def test_a_choice_continuation_is_graded_by_its_letter() -> None:
    meta = {"gold": ["B"], "type": "single_choice", "options": [["A", "16"], ["B", "17"]]}
    choice = from_first_error("c", "Which is 12 + 5?\nA. 16\nB. 17", ["12 + 5 = 18"], 0, meta=meta)
    (task,) = rollout_tasks([choice])
    assert task.question is not None
    assert reaches_gold(task.question, ["12 + 5 = 17"], "So the answer is B")
    assert not reaches_gold(task.question, ["12 + 5 = 16"], "So the answer is A")


def test_the_detector_flags_the_dead_end_and_says_what_came_before() -> None:
    steps = Rollouts().find(Evidence("Q", ["a", "b", "c"], [], rollouts=[0.75, 0.0, 0.0])).steps
    assert [[f.kind for f in s] for s in steps] == [[], [FlagKind.ROLLOUT], []]
    assert "75%" in steps[1][0].message
    assert Rollouts().find(Evidence("Q", ["a", "b"], [], rollouts=[0.5, 0.25])).steps == [[], []]


def test_meta_evaluation_runs_rollouts_on_solutions_with_a_gold_answer() -> None:
    wrong = from_first_error("w", PROBLEM, STEPS, 0, meta={"gold": ["17"]})
    unknown = from_first_error("u", PROBLEM, STEPS, 0)
    context = DetectionContext([wrong, unknown], rollout_backend=ScriptedBackend(_recovers_until_the_slip), rollout_k=2)
    result, aggregate = run_detectors(context, ["rollouts", "aggregate"])
    assert result.native == [0, None] and result.not_checked == {1: NO_GOLD}
    assert result.step_scores[0] == [1.0, 1.0, 1.0]
    assert aggregate.native is not None and aggregate.native[0] == 0
    assert [t.question is not None for t in rollout_tasks([wrong, unknown])] == [True, False]


def test_mr_gsm8k_records_carry_their_gold_answer(tmp_path: Path) -> None:
    from reasoning_metrics.metaeval import load_solutions

    record = {
        "uuid": "u1",
        "question": PROBLEM,
        "ground_truth_answer": 17,
        "model_output_steps": STEPS,
        "model_output_solution_correctness": "wrong",
        "model_output_solution_first_error_step": 1,
    }
    data = tmp_path / "mr.json"
    data.write_text(json.dumps([record]), encoding="utf-8")
    (solution,) = load_solutions(data, "mr-math")
    assert solution.meta["gold"] == ["17"]


@pytest.mark.slow
def test_a_real_tiny_model_continues_every_prefix_k_times(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from runners.backends.base import SamplingParams
    from runners.backends.transformers import TransformersBackend
    from runners.testing.tiny_model import build_tiny_qwen2

    backend = TransformersBackend(str(build_tiny_qwen2(tmp_path / "tiny")), batch_size=4)
    params = SamplingParams(temperature=1.0, max_tokens=6)
    tasks = [RolloutTask(PROBLEM, STEPS[:2], GOLD), RolloutTask("Q", ["x"], None)]
    results = rollout_shares(tasks, backend, k=2, params=params)
    shares = results[0].shares
    assert shares is not None and len(shares) == 2
    assert all(s in (0.0, 0.5, 1.0) for s in shares)  # two continuations each, graded
    assert results[1].shares is None


def test_meta_eval_takes_rollouts_on_the_command_line_and_says_what_they_cost(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from k12eval.cli import app

    chains = tmp_path / "chains.jsonl"
    rows = [
        {"id": "g", "problem": PROBLEM, "steps": STEPS[:2], "first_error": 0, "meta": {"gold": ["17"]}},
        {"id": "n", "problem": PROBLEM, "steps": STEPS, "first_error": 0},
    ]
    chains.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    answers = tmp_path / "answers.jsonl"  # the replay backend answers by request id: solution:step
    answers.write_text(
        json.dumps({"question_id": "0:0", "output": "Then \\boxed{18}"})
        + "\n"
        + json.dumps({"question_id": "0:1", "output": "Then \\boxed{18}"})
        + "\n",
        encoding="utf-8",
    )
    args = ["meta-eval", str(chains), "--format", "chains", "--detectors", "rollouts", "--boot", "0", "--json"]
    result = CliRunner().invoke(
        app, [*args, "--rollouts", str(answers), "--rollout-backend", "replay", "--rollout-k", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "rollouts: 4 generations (2 per step of the 1 of 2 solutions with a gold answer)" in result.stderr
    (rollouts,) = [d for d in json.loads(result.stdout)["detectors"] if d["name"] == "rollouts"]
    assert not rollouts.get("unavailable")
    bad = CliRunner().invoke(app, [*args, "--rollouts", str(tmp_path / "missing.jsonl"), "--rollout-backend", "replay"])
    assert bad.exit_code == 2 and "missing.jsonl" in bad.output and "Traceback" not in bad.output
