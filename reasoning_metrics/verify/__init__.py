"""Detectors that find the wrong step of a solution, and their combination.

* :mod:`.arithmetic`: calculations and comparisons a step asserts, checked numerically;
* :mod:`.equations`: equations in one unknown that disagree with the previous one;
* :mod:`.quantities`: numbers that come from nowhere, given numbers never used;
* :mod:`.doubt`: self-correction and doubt words;
* :mod:`.contradiction`: NLI of each step against the question and earlier steps;
* :mod:`.judge`: an LLM judge or process reward model through any backend;
* :mod:`.aggregate`: all of them (and the ROSCOE scores) as typed per-step flags.

Heavy model code is never imported here; encoders and NLI models are passed in.
"""

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
from reasoning_metrics.verify.doubt import DoubtCue, DoubtKind, doubt_cues
from reasoning_metrics.verify.equations import EquationConflict, equation_conflicts
from reasoning_metrics.verify.flags import FlagKind, SolutionAssessment, StepAssessment, StepFlag
from reasoning_metrics.verify.judge import JudgeVerdict, judge_solutions, parse_first_error, prm_step_scores
from reasoning_metrics.verify.quantities import UnsupportedOperand, unsupported_operands, unused_given_numbers

__all__ = [
    "FLAG_THRESHOLD",
    "ClaimCheck",
    "DoubtCue",
    "DoubtKind",
    "EquationConflict",
    "FlagKind",
    "JudgeVerdict",
    "SolutionAssessment",
    "StepAssessment",
    "StepCheck",
    "StepFlag",
    "UnsupportedOperand",
    "Verdict",
    "assess_one",
    "assess_solutions",
    "check_step",
    "check_steps",
    "doubt_cues",
    "equation_conflicts",
    "first_contradiction",
    "inspect_step",
    "judge_solutions",
    "parse_first_error",
    "prm_step_scores",
    "step_contradictions",
    "step_score",
    "unsupported_operands",
    "unused_given_numbers",
]
