"""What goes into scoring (:class:`Chain`) and what comes out (:class:`ChainScores`), typed and versioned."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCORES_VERSION: Literal[1] = 1

Flag = Literal["unsupported", "contradicts_source", "repeats_earlier", "not_in_reference"]
"""Per-step warnings for teachers; thresholds in :class:`reasoning_metrics.step_detail.StepThresholds`."""

FLAG_NAMES: dict[str, tuple[str, str]] = {
    "unsupported": ("题目中找不到依据", "unsupported by the question"),
    "contradicts_source": ("与题目矛盾", "contradicts the question"),
    "repeats_earlier": ("重复前面的步骤", "repeats an earlier step"),
    "not_in_reference": ("解析中没有这一步", "missing from the reference"),
    # written by earlier versions; still in old score files
    "repeats": ("重复", "repeated"),
    "arithmetic_error": ("计算错误", "arithmetic error"),
    "hallucination": ("幻觉", "hallucination"),
}
"""What the page calls each :data:`Flag`, in Chinese and in English."""


@dataclass(frozen=True)
class Chain:
    """One reasoning chain to score.

    ``hypothesis`` and ``reference`` are split into steps when given as text
    (the reference as CK12 paragraphs, see :func:`reasoning_metrics.split.split_reference`)
    and used as they are when given as lists. ``source`` (the question, with its
    options) is always split into sentences. ``lang`` is detected when not given.
    """

    id: str
    source: str
    hypothesis: str | list[str]
    reference: str | list[str] | None = None
    lang: Literal["zh", "en"] | None = None


class StepDetail(BaseModel):
    """What the scores saw in one hypothesis step; similarities are ``cos* = (1 + cos) / 2``."""

    model_config = ConfigDict(extra="forbid")

    index: int
    """0-based position of the step in the chain."""
    text: str
    source_index: int | None = None
    """Index in ``ChainScores.source_steps`` of the best-matching source sentence."""
    source_similarity: float | None = None
    reference_index: int | None = None
    """Index in ``ChainScores.reference_steps`` of the best-matching reference step."""
    reference_similarity: float | None = None
    contradiction: float | None = None
    """Largest P(contradiction | premise = a source sentence, hypothesis = this step)."""
    contradiction_index: int | None = None
    """The source sentence that gives ``contradiction``."""
    earlier_contradiction: float | None = None
    """Largest P(contradiction | premise = an earlier step, hypothesis = this step) (Self-Consistency's pairs)."""
    earlier_contradiction_index: int | None = None
    """The earlier step that gives ``earlier_contradiction``."""
    repeat_index: int | None = None
    """The most similar earlier step, if any."""
    repeat_similarity: float | None = None
    flags: list[Flag] = Field(default_factory=list)


class ChainScores(BaseModel):
    """The scores of one chain, and the per-step detail behind them."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = SCORES_VERSION
    id: str
    lang: Literal["zh", "en"]
    scores: dict[str, float | None] = Field(default_factory=dict)
    """Each requested metric by name (see ``registry.METRICS``); ``None`` when unavailable."""
    unavailable: dict[str, str] = Field(default_factory=dict)
    """Metric -> why it has no value (empty chain, no reference, model missing ...)."""
    steps: list[StepDetail] = Field(default_factory=list)
    source_steps: list[str] = Field(default_factory=list)
    reference_steps: list[str] = Field(default_factory=list)
    models: dict[str, str] = Field(default_factory=dict)
    """Role (encoder, token_embedder, nli, lm, grammar) -> name of the model that was used."""
    metric_models: dict[str, dict[str, str]] = Field(default_factory=dict)
    """Metric -> role -> model, for the metrics scored with models of their own (``--model-for``);
    the others used ``models``."""
    calibrated: dict[str, float] = Field(default_factory=dict)
    """Metric -> its calibrated reading (:mod:`reasoning_metrics.scales`), written with the floor stored
    for the encoder that scored it (the score header names that floor); only the metrics that have one."""
