"""Typed per-step flags and per-solution assessments: what the HTML report shows for each step."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Literal, Protocol

from pydantic import BaseModel, Field

ASSESSMENT_VERSION = 1
"""Version of :class:`SolutionAssessment` records (its ``version`` field)."""


class Solution(Protocol):
    """What the detectors read of a solution: its id, the problem it answers and its steps."""

    @property
    def id(self) -> str: ...

    @property
    def problem(self) -> str: ...

    @property
    def steps(self) -> Sequence[str]: ...


class FlagKind(StrEnum):
    """What a flag says is wrong with a step."""

    ARITHMETIC = "arithmetic"
    """The step asserts a false calculation or comparison."""
    EQUATION = "equation"
    """An equation in one unknown whose solution disagrees with the previous equation in that unknown."""
    UNSUPPORTED_NUMBER = "unsupported_number"
    """A calculation starts from a number that appears nowhere before."""
    DOUBT = "doubt"
    """The step corrects itself, assumes something unstated, or calls something impossible."""
    REPETITION = "repetition"
    """The step repeats an earlier one word for word, or nearly (ROSCOE Repetition-Step cos* >= 0.98)."""
    CONTRADICTION = "contradiction"
    """An NLI model finds the step contradicts the question or an earlier step."""
    JUDGE = "judge"
    """An LLM judge names this step as the first wrong one."""
    PRM = "prm"
    """A process reward model gives the step a probability of being correct below its threshold."""
    ROLLOUT = "rollout"
    """No sampled continuation from this step's prefix reaches the gold answer (Math-Shepherd rollouts)."""
    UNUSED_GIVEN = "unused_given"
    """(solution level) a number given in the question is never used."""
    NO_FINAL_ANSWER = "no_final_answer"
    """(solution level) the solution never states a final answer."""
    NOT_WHOLE = "not_whole"
    """(solution level) the question asks how many things there are; the answer is not a whole number."""
    REFERENCE_VALUE = "reference_value"
    """The step gives a quantity the teacher's analysis also computes (same variable or named quantity)
    another value."""
    REFERENCE_RELATION = "reference_relation"
    """The step states a relation (``x < 3``) that the teacher's analysis contradicts (``x > 3``)."""
    REFERENCE_ANSWER = "reference_answer"
    """The step reaches a final value other than the gold answer."""
    REFERENCE_DEPARTURE = "reference_departure"
    """The answer was graded wrong and no sharper finding says where: the earliest step whose computed
    values leave the analysis's values (else the step that introduces the wrong final value)."""
    FALSE_FACT = "false_fact"
    """The step states a false fact about a number: ``10是质数``, ``15 is even``, ``7能被2整除``."""
    WRONG_FORMULA = "wrong_formula"
    """A formula or unit conversion stated with numbers does not hold: ``底6高4的三角形面积为24``,
    ``五边形内角和为720°``, ``8人两两握手共4次``, ``1km = 100m``."""
    WRONG_VERDICT = "wrong_verdict"
    """The step chooses an option the gold answer excludes, or rejects one it includes (a choice
    question answered option by option, :mod:`.verdicts`)."""
    NOT_CHECKED = "not_checked"
    """(solution level, severity 0) the detectors could not check the solution: an unexpected error
    or over the time budget of a chain (``SolutionAssessment.status`` says which)."""


FLAG_NAMES: dict[str, tuple[str, str]] = {
    FlagKind.ARITHMETIC: ("计算错误", "arithmetic"),
    FlagKind.EQUATION: ("方程前后不一致", "equation"),
    FlagKind.UNSUPPORTED_NUMBER: ("来历不明的数", "unsupported number"),
    FlagKind.DOUBT: ("自我怀疑", "doubt"),
    FlagKind.REPETITION: ("重复", "repetition"),
    FlagKind.CONTRADICTION: ("矛盾", "contradiction"),
    FlagKind.JUDGE: ("评审模型", "judge"),
    FlagKind.PRM: ("过程奖励模型", "process reward model"),
    FlagKind.ROLLOUT: ("续写都得不到正确答案", "no rollout reaches the answer"),
    FlagKind.UNUSED_GIVEN: ("已知数未用", "unused given"),
    FlagKind.NO_FINAL_ANSWER: ("没有最终答案", "no final answer"),
    FlagKind.NOT_WHOLE: ("个数不是整数", "count not whole"),
    FlagKind.REFERENCE_VALUE: ("与解析的数值不同", "differs from the analysis"),
    FlagKind.REFERENCE_RELATION: ("与解析的关系矛盾", "relation against the analysis"),
    FlagKind.REFERENCE_ANSWER: ("与标准答案不同", "not the gold answer"),
    FlagKind.REFERENCE_DEPARTURE: ("偏离解析", "leaves the analysis"),
    FlagKind.FALSE_FACT: ("事实错误", "false fact"),
    FlagKind.WRONG_FORMULA: ("公式或换算错误", "wrong formula or conversion"),
    FlagKind.WRONG_VERDICT: ("选项判断与答案相反", "option verdict against the answer"),
    FlagKind.NOT_CHECKED: ("未检查", "not checked"),
}
"""What the page calls each kind of flag, in Chinese and in English."""

SEVERITY = {
    FlagKind.ARITHMETIC: 0.9,
    FlagKind.EQUATION: 0.7,
    FlagKind.JUDGE: 0.8,
    FlagKind.ROLLOUT: 0.8,
    FlagKind.UNSUPPORTED_NUMBER: 0.5,
    FlagKind.REPETITION: 0.5,
    FlagKind.UNUSED_GIVEN: 0.3,
    FlagKind.NO_FINAL_ANSWER: 0.3,
    FlagKind.NOT_WHOLE: 0.5,
    FlagKind.REFERENCE_VALUE: 0.7,
    FlagKind.REFERENCE_RELATION: 0.7,
    FlagKind.REFERENCE_ANSWER: 0.6,
    FlagKind.REFERENCE_DEPARTURE: 0.5,
    FlagKind.FALSE_FACT: 0.9,
    FlagKind.WRONG_FORMULA: 0.8,
    FlagKind.WRONG_VERDICT: 0.8,
}
"""Severity of each kind of flag; doubt cues carry their own (:data:`.rules.doubt.WEIGHTS`), contradictions
``CONTRADICTION_WEIGHT * P(contradiction)`` (:mod:`.detectors.contradiction`), a process reward
model's flag ``1 - P(correct)`` (:mod:`.detectors.prm`)."""


class StepFlag(BaseModel):
    """One reason to suspect a step (or, for solution-level kinds, the whole solution)."""

    kind: FlagKind
    severity: float = Field(ge=0, le=1)
    """How strongly this flag alone suggests an error, as a probability-like weight."""
    message: str
    """One line for a reader, e.g. ``48 / 2 = 25 is false (48 / 2 = 24)``. Untrusted text: escape it."""
    message_zh: str | None = None
    """The same line in Chinese, for the Chinese page (``None``: not written by this detector, or by an
    older version). Untrusted text: escape it."""
    evidence: str | None = None
    """The offending expression or quoted words, if any. Untrusted text: escape it."""


class StepAssessment(BaseModel):
    """Everything the detectors found about one step."""

    index: int = Field(ge=0)
    """0-based step index."""
    suspicion: float = Field(ge=0, le=1)
    """Combined flag severities: 1 - prod(1 - severity)."""
    flags: list[StepFlag] = Field(default_factory=list)
    alignment: float | None = None
    """ROSCOE r-align of the step to the source (Faithfulness-Step term), if an encoder ran."""
    contradiction: float | None = None
    """Largest P(contradiction) against the question or an earlier step, if an NLI model ran."""


class SolutionAssessment(BaseModel):
    """All flags of one solution, its score and its first suspect step."""

    version: Literal[1] = 1
    id: str
    score: float
    """Higher = more likely wrong: 1 - prod over steps and solution flags of (1 - severity), plus a
    ROSCOE tie-breaker below 0.01 (see docs/detectors.md)."""
    first_suspect: int
    """The step to look at first, or -1: see ``suspect_rule``."""
    suspect_rule: Literal["flag", "fallback", "none"] = "none"
    """How ``first_suspect`` was chosen: ``flag``, the earliest step whose suspicion reaches the flag
    threshold; ``fallback``, no step does but the solution is suspect (its findings reach
    ``LOCATE_AT``), so the earliest step with any finding, else the first step that calculates;
    ``none``, nothing suspect (``first_suspect`` is -1)."""
    steps: list[StepAssessment]
    flags: list[StepFlag] = Field(default_factory=list)
    """Solution-level flags (unused given numbers, no final answer, a count that is not whole)."""
    detectors: list[str] = Field(default_factory=list)
    """Detectors that ran, by their names in :data:`~.registry.DETECTORS` (records written before it may
    hold older names; :func:`~.registry.current_names` reads them as today's)."""
    unavailable: dict[str, str] = Field(default_factory=dict)
    """Detector -> why it did not run (no NLI model, no backend...)."""

    status: Literal["checked", "error", "too_long"] = "checked"
    """``checked``; or the solution was not checked: ``error`` (a detector failed on it) or ``too_long``
    (over the time budget of a chain). Then ``steps`` carry no flags, ``score`` is 0, ``first_suspect``
    is -1 and the one solution flag (``not_checked``) says why."""
