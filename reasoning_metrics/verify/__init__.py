"""Detectors that find the wrong step of a solution, and their combination.

Each detector implements one protocol (:class:`~.detector.Detector`: a name, the parts of the
:class:`~.detector.Evidence` it reads, the flag kinds it raises, ``find``) in its own module of
:mod:`.detectors`, and is named once, in :data:`~.registry.DETECTORS`:

* ``arithmetic`` (:mod:`.arithmetic`): calculations and comparisons a step asserts, checked numerically;
* ``equations`` (:mod:`.equations`): equations in one unknown that disagree with the previous one;
* ``unsupported_numbers``, ``unused_given`` (:mod:`.quantities`): numbers that come from nowhere,
  given numbers never used;
* ``doubt`` (:mod:`.doubt`): self-correction and doubt words;
* ``repetition``: a step that repeats an earlier one;
* ``contradiction`` (:mod:`.contradiction`): NLI of each step against the question and earlier steps;
* ``judge`` (:mod:`.judge`): an LLM judge through any backend;
* ``prm`` (:mod:`.prm`): a Qwen2.5-Math-PRM-style process reward model's P(correct) of each step
  (the models: :mod:`reasoning_metrics.models.prm`);
* ``rollouts`` (:mod:`.rollouts`): Math-Shepherd's share of continuations from each step that reach
  the gold answer, through any backend;
* ``final_answer``: no final answer stated; ``not_whole`` (:mod:`.plausibility`): a count that is not whole;
* ``roscoe`` (:mod:`.baseline`): ROSCOE's Faithfulness-Step, the aggregate's tie-breaker (no flags).

:mod:`.aggregate` runs them all (and reads the ROSCOE scores) into typed per-step flags.
Heavy model code is never imported here; encoders and NLI models are passed in.
"""

from reasoning_metrics.models.prm_format import prm_messages
from reasoning_metrics.verify.aggregate import FLAG_THRESHOLD, assess_one, assess_solutions, step_score
from reasoning_metrics.verify.arithmetic import (
    ClaimCheck,
    StepCheck,
    Verdict,
    check_step,
    check_steps,
    inspect_step,
)
from reasoning_metrics.verify.contradiction import first_contradiction, step_contradictions
from reasoning_metrics.verify.conversions import stated_conversions
from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Reference
from reasoning_metrics.verify.doubt import DoubtCue, DoubtKind, doubt_cues
from reasoning_metrics.verify.equations import EquationConflict, equation_conflicts
from reasoning_metrics.verify.facts import Fact, stated_facts
from reasoning_metrics.verify.flags import FlagKind, SolutionAssessment, StepAssessment, StepFlag
from reasoning_metrics.verify.formulas import stated_formulas
from reasoning_metrics.verify.judge import JudgeVerdict, judge_solutions, parse_first_error, prm_step_scores
from reasoning_metrics.verify.prm import PRM_THRESHOLD, StepRewardModel, first_below
from reasoning_metrics.verify.quantities import UnsupportedOperand, unsupported_operands, unused_given_numbers
from reasoning_metrics.verify.registry import DETECTORS
from reasoning_metrics.verify.rollouts import RolloutResult, RolloutTask, first_dead_end, rollout_shares

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
