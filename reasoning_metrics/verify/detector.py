"""What a wrong-step detector is: one protocol, the evidence it reads and the findings it returns.

A detector (one class in :mod:`.detectors`, one entry in :data:`.registry.DETECTORS`) declares its
``name``, the parts of the :class:`Evidence` it ``reads`` (and which of the optional ones it
``needs`` to run at all) and the :class:`~.flags.FlagKind` s it raises; ``find`` turns the evidence
of one solution into :class:`Findings`. The aggregate (:mod:`.aggregate_rule`) runs every registered
detector whose needs are met; the meta-evaluation scores the same objects one by one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from reasoning_metrics.records import ChainScores
from reasoning_metrics.verify.flags import SEVERITY, FlagKind, StepFlag
from reasoning_metrics.verify.rules.arithmetic import StepCheck

Input = Literal["problem", "steps", "checks", "roscoe", "contradictions", "judged", "reference", "prm", "rollouts"]
"""A part of the :class:`Evidence`; ``roscoe``, ``contradictions``, ``judged``, ``reference``, ``prm`` and
``rollouts`` may be absent."""


@dataclass(frozen=True)
class Reference:
    """What the question bank knows of the right solution, and how the run graded the answer."""

    answer: str
    """The gold answer as the bank writes it (``$$8$$``, ``C``, ``28种``)."""
    analysis: str
    """The teacher's worked solution (CK12 ``analysis``)."""
    correct: bool | None = None
    """The run record's grading of the model's final answer; ``None`` when not graded."""


@dataclass(frozen=True)
class Evidence:
    """Everything known about one solution that a detector may read."""

    problem: str
    steps: Sequence[str]
    checks: Sequence[StepCheck]
    """:func:`~.rules.arithmetic.check_steps` of ``steps``: one per step."""
    roscoe: ChainScores | None = None
    """ROSCOE scores with per-step detail (:func:`~.rules.baseline.roscoe_scores`), if an encoder ran."""
    contradictions: Sequence[float] | None = None
    """Each step's largest P(contradiction) (:func:`~.rules.contradiction.step_contradictions`), if an NLI model ran."""
    judged: int | None = None
    """The judge's first wrong step (-1 none), if a judge ran and answered."""
    reference: Reference | None = None
    """The gold answer and teacher's analysis, where the bank has them."""
    prm: Sequence[float] | None = None
    """A process reward model's P(correct) of each step (:mod:`~.rules.prm`), if one ran on this solution."""
    rollouts: Sequence[float | None] | None = None
    """Per step, the share of sampled continuations from its prefix that reach the gold answer
    (``None``: the backend failed on that prefix), if rollouts ran on this solution (:mod:`~.rules.rollouts`)."""
    models: Mapping[str, str] = field(default_factory=dict)
    """Whose verdict a model-made input is: input name (``judged``, ``prm``) -> the model that made it, named in
    the flags raised on it so that a reader sees whose verdict a step shows."""

    def has(self, inputs: frozenset[Input]) -> bool:
        """Whether every one of ``inputs`` is present."""
        return all(getattr(self, name) is not None for name in inputs)


@dataclass(frozen=True)
class Findings:
    """What one detector found in one solution."""

    steps: list[list[StepFlag]]
    """One list of flags per step (``steps[i]`` is step ``i``)."""
    solution: list[StepFlag]
    """Flags of the whole solution."""

    @classmethod
    def at_steps(cls, steps: list[list[StepFlag]]) -> Findings:
        """Step flags only."""
        return cls(steps, [])

    @classmethod
    def of_solution(cls, n_steps: int, flags: list[StepFlag]) -> Findings:
        """Solution flags only."""
        return cls([[] for _ in range(n_steps)], flags)


EVIDENCE_MODEL: dict[Input, str] = {
    "roscoe": "encoder",
    "contradictions": "nli",
    "judged": "judge",
    "prm": "prm",
    "rollouts": "rollouts",
}
"""Evidence part -> the model role that produces it (the twin of ``reasoning_metrics.metric_table.INPUT_MODEL``)."""


def needed_roles(detector: Detector, *, optional: bool = False) -> frozenset[str]:
    """The model roles ``detector`` cannot run without (``optional``: also those it reads when given)."""
    parts = detector.reads if optional else detector.needs
    return frozenset(EVIDENCE_MODEL[part] for part in parts if part in EVIDENCE_MODEL)


# A detector may also declare, as class attributes read with getattr: ``orientation`` (str), what its
# score counts when meta-eval scores it alone (a detector without one is not scored alone by counting
# its flags), and ``step_measure`` ("count", the default, or "heaviest"), how a step's flags make its score.


class Detector(Protocol):
    """One wrong-step detector (see the module doc)."""

    name: str
    """Its one name: in score headers, ``SolutionAssessment.detectors``, meta-eval reports and the CLI."""
    reads: frozenset[Input]
    """The parts of the evidence it looks at."""
    needs: frozenset[Input]
    """The optional parts without which it does not run (a subset of ``reads``)."""
    kinds: frozenset[FlagKind]
    """The kinds of flag it raises (none: it only informs the score, as ROSCOE's tie-breaker does)."""

    def find(self, evidence: Evidence) -> Findings:
        """Its flags on one solution."""
        ...


def flag(kind: FlagKind, message: str, evidence: str | None = None, zh: str | None = None) -> StepFlag:
    """A flag with the fixed severity of its kind (:data:`~.flags.SEVERITY`); ``zh``: the message in Chinese."""
    return StepFlag(kind=kind, severity=SEVERITY[kind], message=message, evidence=evidence, message_zh=zh)
