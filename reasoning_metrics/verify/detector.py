"""What a wrong-step detector is: one base class, the evidence it reads and the findings it returns.

A detector (one subclass of :class:`Detector` in :mod:`.detectors`, one entry in :data:`.registry.DETECTORS`)
declares its ``name`` and ``labels``, the parts of the :class:`Evidence` it ``reads`` (and which of the optional
ones it ``needs`` to run at all), the :class:`~.flags.FlagKind` s it raises and how meta-eval scores it alone
(``orientation``, ``step_measure``); ``find`` turns the evidence
of one solution into :class:`Findings`. The aggregate (:mod:`.aggregate_rule`) runs every registered
detector whose needs are met; the meta-evaluation scores the same objects one by one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from reasoning_metrics.records import ChainScores
from reasoning_metrics.verify.flags import SEVERITY, FlagKind, StepFlag
from reasoning_metrics.verify.rules.arithmetic import StepCheck

Input = Literal["problem", "steps", "checks", "roscoe", "contradictions", "judged", "reference", "prm", "rollouts"]
"""A part of the :class:`Evidence`; ``roscoe``, ``contradictions``, ``judged``, ``reference``, ``prm`` and
``rollouts`` may be absent."""
StepMeasure = Literal["count", "heaviest"]
STEP_MEASURES: tuple[StepMeasure, ...] = ("count", "heaviest")


@dataclass(frozen=True)
class Reference:
    """What the question bank knows of the right solution, and how the run graded the answer."""

    answer: str
    """The gold answer as the bank writes it (``$$8$$``, ``C``, ``28种``)."""
    analysis: str
    """The teacher's worked solution (CK12 ``analysis``); empty when the bank has only the answer."""
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


@dataclass(frozen=True)
class Labels:
    """What a detector is called on the page and in the reports, in each language."""

    zh: str
    en: str


class Detector:
    """One wrong-step detector (see the module doc): what it is, as typed class members, and ``find``.

    A subclass declares its ``name`` and its ``labels`` (what the page calls it, ``zh`` and ``en``) and,
    where they differ from the defaults: what it ``reads`` and ``needs``, the flag ``kinds`` it raises, its
    ``orientation`` and ``step_measure``. They are checked when the class is defined.
    """

    name: ClassVar[str]
    """Its one name: in score headers, ``SolutionAssessment.detectors``, meta-eval reports and the CLI."""
    labels: ClassVar[Labels]
    """What the page and the reports call it, in Chinese and English."""
    reads: ClassVar[frozenset[Input]] = frozenset()
    """The parts of the evidence it looks at."""
    needs: ClassVar[frozenset[Input]] = frozenset()
    """The optional parts without which it does not run (a subset of ``reads``)."""
    kinds: ClassVar[frozenset[FlagKind]] = frozenset()
    """The kinds of flag it raises (none: it only informs the score, as ROSCOE's tie-breaker does)."""
    orientation: ClassVar[str | None] = None
    """What its score counts when meta-eval scores it alone (higher = more suspect); ``None``: it is not
    scored alone by its flags (its own meta-eval score, or none)."""
    step_measure: ClassVar[StepMeasure] = "count"
    """How a step's flags make its score when scored alone: their number, or their ``heaviest`` severity."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        declared = getattr(cls, "name", None)
        if not isinstance(declared, str) or not declared:
            raise TypeError(f"detector {cls.__name__} declares no name")
        if not isinstance(getattr(cls, "labels", None), Labels):
            raise TypeError(f"detector {declared!r} declares no labels (Labels(zh=..., en=...))")
        if not cls.needs <= cls.reads:
            raise TypeError(f"detector {declared!r} needs {sorted(cls.needs - cls.reads)} that it does not read")
        if cls.step_measure not in STEP_MEASURES:
            raise TypeError(f"detector {declared!r}: step_measure {cls.step_measure!r} is not one of {STEP_MEASURES}")

    @property
    def roles(self) -> frozenset[str]:
        """The model roles it cannot run without (``encoder``, ``nli``, ``judge``...)."""
        return frozenset(EVIDENCE_MODEL[part] for part in self.needs if part in EVIDENCE_MODEL)

    @property
    def optional_roles(self) -> frozenset[str]:
        """The model roles whose evidence it reads when given, needed or not."""
        return frozenset(EVIDENCE_MODEL[part] for part in self.reads if part in EVIDENCE_MODEL)

    def find(self, evidence: Evidence) -> Findings:
        """Its flags on one solution."""
        raise NotImplementedError


def flag(kind: FlagKind, message: str, evidence: str | None = None, zh: str | None = None) -> StepFlag:
    """A flag with the fixed severity of its kind (:data:`~.flags.SEVERITY`); ``zh``: the message in Chinese."""
    return StepFlag(kind=kind, severity=SEVERITY[kind], message=message, evidence=evidence, message_zh=zh)
