"""Detectors that find the wrong step of a solution, and their combination.

Each detector implements one protocol (:class:`~.detector.Detector`: a name, the parts of the
:class:`~.detector.Evidence` it reads, the flag kinds it raises, ``find``) in its own module of
:mod:`.detectors`, and is named once, in :data:`~.registry.DETECTORS`:

* ``arithmetic`` (:mod:`.rules.arithmetic`): calculations and comparisons a step asserts, checked numerically;
* ``equations`` (:mod:`.rules.equations`): equations in one unknown that disagree with the previous one;
* ``unsupported_numbers``, ``unused_given`` (:mod:`.rules.quantities`): numbers that come from nowhere,
  given numbers never used;
* ``doubt`` (:mod:`.rules.doubt`): self-correction and doubt words;
* ``repetition``: a step that repeats an earlier one;
* ``contradiction`` (:mod:`.rules.contradiction`): NLI of each step against the question and earlier steps;
* ``judge`` (:mod:`.rules.judge`): an LLM judge through any backend;
* ``prm`` (:mod:`.rules.prm`): a Qwen2.5-Math-PRM-style process reward model's P(correct) of each step
  (the models: :mod:`reasoning_metrics.models.prm_model`);
* ``rollouts`` (:mod:`.rules.rollouts`): Math-Shepherd's share of continuations from each step that reach
  the gold answer, through any backend;
* ``final_answer``: no final answer stated; ``not_whole`` (:mod:`.rules.plausibility`): a count that is not whole;
* ``roscoe`` (:mod:`.rules.baseline`): ROSCOE's Faithfulness-Step, the aggregate's tie-breaker (no flags).

:mod:`.aggregate_rule` runs them all (and reads the ROSCOE scores) into typed per-step flags.
Heavy model code is never imported here; encoders and NLI models are passed in.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "prm_messages": "reasoning_metrics.models.prm_format",
    "FLAG_THRESHOLD": "reasoning_metrics.verify.aggregate_rule",
    "assess_one": "reasoning_metrics.verify.aggregate_rule",
    "assess_solutions": "reasoning_metrics.verify.aggregate_rule",
    "step_score": "reasoning_metrics.verify.aggregate_rule",
    "ClaimCheck": "reasoning_metrics.verify.rules.arithmetic",
    "StepCheck": "reasoning_metrics.verify.rules.arithmetic",
    "Verdict": "reasoning_metrics.verify.rules.arithmetic",
    "check_step": "reasoning_metrics.verify.rules.arithmetic",
    "check_steps": "reasoning_metrics.verify.rules.arithmetic",
    "inspect_step": "reasoning_metrics.verify.rules.arithmetic",
    "first_contradiction": "reasoning_metrics.verify.rules.contradiction",
    "step_contradictions": "reasoning_metrics.verify.rules.contradiction",
    "stated_conversions": "reasoning_metrics.verify.rules.conversions",
    "Detector": "reasoning_metrics.verify.detector",
    "Evidence": "reasoning_metrics.verify.detector",
    "Findings": "reasoning_metrics.verify.detector",
    "Reference": "reasoning_metrics.verify.detector",
    "DoubtCue": "reasoning_metrics.verify.rules.doubt",
    "DoubtKind": "reasoning_metrics.verify.rules.doubt",
    "doubt_cues": "reasoning_metrics.verify.rules.doubt",
    "EquationConflict": "reasoning_metrics.verify.rules.equations",
    "equation_conflicts": "reasoning_metrics.verify.rules.equations",
    "Fact": "reasoning_metrics.verify.rules.facts",
    "stated_facts": "reasoning_metrics.verify.rules.facts",
    "FlagKind": "reasoning_metrics.verify.flags",
    "SolutionAssessment": "reasoning_metrics.verify.flags",
    "StepAssessment": "reasoning_metrics.verify.flags",
    "StepFlag": "reasoning_metrics.verify.flags",
    "stated_formulas": "reasoning_metrics.verify.rules.formulas",
    "JudgeVerdict": "reasoning_metrics.verify.rules.judge",
    "judge_solutions": "reasoning_metrics.verify.rules.judge",
    "parse_first_error": "reasoning_metrics.verify.rules.judge",
    "prm_step_scores": "reasoning_metrics.verify.rules.judge",
    "PRM_THRESHOLD": "reasoning_metrics.verify.rules.prm",
    "StepRewardModel": "reasoning_metrics.verify.rules.prm",
    "first_below": "reasoning_metrics.verify.rules.prm",
    "UnsupportedOperand": "reasoning_metrics.verify.rules.quantities",
    "unsupported_operands": "reasoning_metrics.verify.rules.quantities",
    "unused_given_numbers": "reasoning_metrics.verify.rules.quantities",
    "DETECTORS": "reasoning_metrics.verify.registry",
    "RolloutResult": "reasoning_metrics.verify.rules.rollouts",
    "RolloutTask": "reasoning_metrics.verify.rules.rollouts",
    "first_dead_end": "reasoning_metrics.verify.rules.rollouts",
    "rollout_shares": "reasoning_metrics.verify.rules.rollouts",
}
"""Public name -> the module that defines it, imported on first use (importing one detector module, or reading a score file, does not load every detector and sympy)."""

__all__ = [
    "DETECTORS",
    "FLAG_THRESHOLD",
    "PRM_THRESHOLD",
    "ClaimCheck",
    "Detector",
    "DoubtCue",
    "DoubtKind",
    "EquationConflict",
    "Evidence",
    "Fact",
    "Findings",
    "FlagKind",
    "JudgeVerdict",
    "Reference",
    "RolloutResult",
    "RolloutTask",
    "SolutionAssessment",
    "StepAssessment",
    "StepCheck",
    "StepFlag",
    "StepRewardModel",
    "UnsupportedOperand",
    "Verdict",
    "assess_one",
    "assess_solutions",
    "check_step",
    "check_steps",
    "doubt_cues",
    "equation_conflicts",
    "first_below",
    "first_contradiction",
    "first_dead_end",
    "inspect_step",
    "judge_solutions",
    "parse_first_error",
    "prm_messages",
    "prm_step_scores",
    "rollout_shares",
    "stated_conversions",
    "stated_facts",
    "stated_formulas",
    "step_contradictions",
    "step_score",
    "unsupported_operands",
    "unused_given_numbers",
]

if TYPE_CHECKING:
    from reasoning_metrics.models.prm_format import prm_messages
    from reasoning_metrics.verify.aggregate_rule import FLAG_THRESHOLD, assess_one, assess_solutions, step_score
    from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Reference
    from reasoning_metrics.verify.flags import FlagKind, SolutionAssessment, StepAssessment, StepFlag
    from reasoning_metrics.verify.registry import DETECTORS
    from reasoning_metrics.verify.rules.arithmetic import (
        ClaimCheck,
        StepCheck,
        Verdict,
        check_step,
        check_steps,
        inspect_step,
    )
    from reasoning_metrics.verify.rules.contradiction import first_contradiction, step_contradictions
    from reasoning_metrics.verify.rules.conversions import stated_conversions
    from reasoning_metrics.verify.rules.doubt import DoubtCue, DoubtKind, doubt_cues
    from reasoning_metrics.verify.rules.equations import EquationConflict, equation_conflicts
    from reasoning_metrics.verify.rules.facts import Fact, stated_facts
    from reasoning_metrics.verify.rules.formulas import stated_formulas
    from reasoning_metrics.verify.rules.judge import JudgeVerdict, judge_solutions, parse_first_error, prm_step_scores
    from reasoning_metrics.verify.rules.prm import PRM_THRESHOLD, StepRewardModel, first_below
    from reasoning_metrics.verify.rules.quantities import UnsupportedOperand, unsupported_operands, unused_given_numbers
    from reasoning_metrics.verify.rules.rollouts import RolloutResult, RolloutTask, first_dead_end, rollout_shares


def __getattr__(name: str) -> Any:
    """The public names, each imported from its module when first asked for (PEP 562)."""
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
