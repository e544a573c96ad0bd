"""The metric table: name -> function, the inputs it needs, direction, paper name and meaning.

Names are the paper's (snake case); ``roscoe_key`` is the reference code's name
for the same number, and :func:`resolve` accepts either, or the paper name.
Every score is oriented so that higher is better, except
``source_contradiction_max`` (the CK12 paper's Source-Consistency column).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

from kg import plugins
from reasoning_metrics import functional as F

Input = Literal[
    "sim_hs",
    "sim_hr",
    "sim_rs",
    "sim_hh",
    "chain_hs",
    "chain_hr",
    "token_align_hs",
    "token_align_hh",
    "contra_hs",
    "contra_hh",
    "ppl_steps",
    "ppl_chain",
    "grammar",
]
"""The arrays a chain is scored from; see :mod:`reasoning_metrics.functional` for their shapes."""

INPUT_MODEL: dict[str, str] = {
    "sim_hs": "encoder",
    "sim_hr": "encoder",
    "sim_rs": "encoder",
    "sim_hh": "encoder",
    "chain_hs": "encoder",
    "chain_hr": "encoder",
    "token_align_hs": "token_embedder",
    "token_align_hh": "token_embedder",
    "contra_hs": "nli",
    "contra_hh": "nli",
    "ppl_steps": "lm",
    "ppl_chain": "lm",
    "grammar": "grammar",
}
"""Input -> the model role that produces it."""

REFERENCE_INPUTS = frozenset({"sim_hr", "sim_rs", "chain_hr"})
SOURCE_INPUTS = frozenset({"sim_hs", "sim_rs", "chain_hs", "token_align_hs", "contra_hs"})


Scale = Literal["similarity", "hallucination"]
StepPart = Literal["alignment", "repetition", "source_contradiction", "earlier_contradiction"]


@dataclass(frozen=True)
class Metric:
    """One score: how to compute it from a chain's inputs and how to read it."""

    name: str
    fn: Callable[..., float]
    inputs: tuple[Input, ...]
    """Arguments of ``fn``, in order."""
    direction: Literal["higher", "lower"]
    """Which way is better."""
    paper_name: str
    roscoe_key: str
    """The reference implementation's key; ``""`` for scores it does not have."""
    description: str
    labels: dict[str, str] = field(default_factory=dict, hash=False)
    """The score's title by language (``zh``, ``en``): what the report and the page call it."""
    scale: Scale | None = None
    """The formula of its calibrated reading beside the raw value (:mod:`reasoning_metrics.scales`), if it has one:
    ``similarity`` for a mean or minimum of best matches, ``hallucination`` for its product of two."""
    step_part: StepPart | None = None
    """Its share at each step, for the detectors' ROSCOE baseline (meta-eval's ``roscoe.<name>``): a
    reference-free score an encoder (and an NLI model) gives has one (``StepDetail``'s ``alignment``,
    ``repetition``, ``source_contradiction`` or ``earlier_contradiction``); ``None``: not in the baseline."""

    @property
    def needs_reference(self) -> bool:
        """Whether the score compares with a reference chain."""
        return any(i in REFERENCE_INPUTS for i in self.inputs)

    @property
    def models(self) -> frozenset[str]:
        """The model roles the score needs."""
        return frozenset(INPUT_MODEL[i] for i in self.inputs)


def _m(
    name: str,
    fn: Callable[..., float],
    inputs: tuple[Input, ...],
    paper: str,
    key: str,
    text: str,
    *,
    zh: str,
    en: str | None = None,
    direction: Literal["higher", "lower"] = "higher",
    scale: Scale | None = None,
    step_part: StepPart | None = None,
) -> Metric:
    return Metric(name, fn, inputs, direction, paper, key, text, {"zh": zh, "en": en or paper}, scale, step_part)


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        _m(
            "faithfulness_step",
            F.faithfulness_step,
            ("sim_hs",),
            "Faithfulness-Step",
            "faithfulness",
            "How well steps rest on the question: mean best similarity of a step to a source sentence.",
            zh="忠实度（步骤）",
            scale="similarity",
            step_part="alignment",
        ),
        _m(
            "faithfulness_token",
            F.faithfulness_token,
            ("sim_hs", "token_align_hs"),
            "Faithfulness-Token",
            "faithfulness_ww",
            "Faithfulness-Step with each hypothesis token aligned to the source's tokens too.",
            zh="忠实度（词）",
        ),
        _m(
            "info_step",
            F.info_step,
            ("sim_hs",),
            "Info-Step",
            "informativeness_step",
            "How much of the question the chain uses and how much of the chain comes from the question.",
            zh="信息量（步骤）",
            step_part="alignment",
        ),
        _m(
            "info_chain",
            F.info_chain,
            ("chain_hs",),
            "Info-Chain",
            "informativeness_chain",
            "Similarity of the whole chain to the whole question (range 0.5-1).",
            zh="信息量（链）",
            step_part="alignment",
        ),
        _m(
            "repetition_token",
            F.repetition_token,
            ("token_align_hh",),
            "Repetition-Token",
            "repetition_word",
            "1 - token overlap of the step most repeating an earlier one.",
            zh="不重复（词）",
        ),
        _m(
            "repetition_step",
            F.repetition_step,
            ("sim_hh",),
            "Repetition-Step",
            "repetition_step",
            "(1 - similarity of the two most similar steps) / 2 (range 0-0.5; 1 for a 1-step chain).",
            zh="不重复（步骤）",
            step_part="repetition",
        ),
        _m(
            "source_consistency",
            F.source_consistency,
            ("contra_hs",),
            "Source-Consistency",
            "discourse_representation",
            "1 - the largest probability that a step contradicts a source sentence.",
            zh="与题目一致",
            step_part="source_contradiction",
        ),
        _m(
            "source_contradiction_max",
            F.source_contradiction_max,
            ("contra_hs",),
            "Source-Consistency (CK12 paper, lower is better)",
            "",
            "The largest probability that a step contradicts a source sentence.",
            zh="与题目矛盾（最大概率）",
            en="Source-Contradiction-Max",
            direction="lower",
        ),
        _m(
            "self_consistency",
            F.self_consistency,
            ("contra_hh",),
            "Self-Consistency",
            "coherence_step_vs_step",
            "1 - the largest probability that a step contradicts another step.",
            zh="自洽",
            step_part="earlier_contradiction",
        ),
        _m(
            "reasoning_alignment",
            F.reasoning_alignment,
            ("sim_hr",),
            "Reasoning Alignment",
            "reasoning_alignment",
            "Mean best similarity of a step to a reference step.",
            zh="与解析对齐",
            scale="similarity",
        ),
        _m(
            "hallucination",
            F.hallucination,
            ("sim_hr", "sim_hs"),
            "Hallucination",
            "external_hallucination",
            "1 - how far the least grounded step is from both the reference and the question.",
            zh="无幻觉",
            scale="hallucination",
        ),
        _m(
            "redundancy",
            F.redundancy,
            ("sim_hr",),
            "Redundancy",
            "redundancy",
            "Best reference similarity of the step least like any reference step.",
            zh="无冗余",
            scale="similarity",
        ),
        _m(
            "commonsense",
            F.commonsense,
            ("sim_hr", "sim_rs"),
            "Commonsense",
            "common_sense_error",
            "1 - how far the reference step most missing from the chain is from both chain and question.",
            zh="常识",
        ),
        _m(
            "missing_step",
            F.missing_step,
            ("sim_hr",),
            "Missing Step",
            "missing_step",
            "Best chain similarity of the reference step least covered by the chain.",
            zh="无缺步",
            scale="similarity",
        ),
        _m(
            "semantic_coverage_step",
            F.semantic_coverage_step,
            ("sim_rs", "sim_hs"),
            "Semantic Coverage-Step",
            "semantic_coverage_step",
            "1 - gap between how grounded the reference and the chain are in the question.",
            zh="语义覆盖（步骤）",
        ),
        _m(
            "semantic_coverage_chain",
            F.semantic_coverage_chain,
            ("chain_hr",),
            "Semantic Coverage-Chain",
            "semantic_coverage_chain",
            "Similarity of the whole chain to the whole reference (range 0.5-1).",
            zh="语义覆盖（链）",
        ),
        _m(
            "perplexity_step",
            F.perplexity_step,
            ("ppl_steps",),
            "Perplexity-Step",
            "perplexity_step",
            "1 / token-weighted mean perplexity of the steps.",
            zh="流畅度（步骤）",
        ),
        _m(
            "perplexity_step_max",
            F.perplexity_step_max,
            ("ppl_steps",),
            "Perplexity-Step-Max",
            "perplexity_step_max",
            "1 / perplexity of the least fluent step.",
            zh="流畅度（最差步骤）",
        ),
        _m(
            "perplexity_chain",
            F.perplexity_chain,
            ("ppl_chain",),
            "Perplexity-Chain",
            "perplexity_chain",
            "1 / perplexity of the whole chain.",
            zh="流畅度（链）",
        ),
        _m(
            "grammar_step",
            F.grammar_step,
            ("grammar",),
            "Grammar",
            "grammar_step",
            "Mean probability that a step is grammatical.",
            zh="语法",
        ),
        _m(
            "grammar_step_max",
            F.grammar_step_max,
            ("grammar",),
            "Grammar-Step-Max",
            "grammar_step_max",
            "Probability that the least grammatical step is grammatical.",
            zh="语法（最差步骤）",
        ),
    )
}

DEFAULT_METRICS: tuple[str, ...] = (
    "faithfulness_step",
    "source_consistency",
    "source_contradiction_max",
    "reasoning_alignment",
    "hallucination",
    "redundancy",
)
"""The five scores of the CK12 paper's Table 2, Source-Consistency both ways."""

METRIC_GROUP = plugins.METRIC_GROUP
"""Entry-point group of the metrics other packages provide (``name = "package.module:RECORD"``, a :class:`Metric`
whose ``name`` is the entry point's): read for a name :data:`METRICS` does not have (:func:`find_metric`), and
by ``all``."""


def plugin_metrics() -> list[str]:
    """The names of the installed packages' metrics (``k12eval.metrics`` entry points), sorted; none loaded."""
    return plugins.installed(METRIC_GROUP, METRICS)


def find_metric(name: str) -> Metric | None:
    """The metric ``name``: built in, or an installed package's (loaded now and checked), else ``None``."""
    if name in METRICS:
        return METRICS[name]
    return _plugin_metric(name)


@cache
def _plugin_metric(name: str) -> Metric | None:
    from kg.errors import InputError

    entry = plugins.find(METRIC_GROUP, name)
    if entry is None:
        return None
    metric = plugins.load(entry, "metric")
    what = f"metric {name!r} ({plugins.where(entry)})"
    if not isinstance(metric, Metric) or metric.name != name:
        raise InputError(f"{what} is not a reasoning_metrics.metric_table.Metric named {name!r}")
    unknown = [i for i in metric.inputs if i not in INPUT_MODEL]
    if unknown or not {"zh", "en"} <= set(metric.labels) or metric.direction not in ("higher", "lower"):
        raise InputError(f"{what} needs inputs {', '.join(INPUT_MODEL)}, labels zh and en, a direction")
    return metric


_ALIASES = {
    alias.lower().replace("-", "_").replace(" ", "_"): m.name
    for m in METRICS.values()
    for alias in (m.name, m.roscoe_key, m.paper_name)
    if alias
}


def resolve(names: Iterable[str] | None) -> list[Metric]:
    """The metrics named (name, ROSCOE key, paper name, `all`; list or "a,b"), default if ``None``.

    Raises ``ValueError`` naming the unknown ones and the choices.
    """
    if names is None:
        return [METRICS[n] for n in DEFAULT_METRICS]
    if isinstance(names, str):
        names = names.split(",")
    chosen: list[str] = []
    unknown: list[str] = []
    for raw in names:
        key = raw.strip().lower().replace("-", "_").replace(" ", "_")
        if key == "all":
            chosen.extend([*METRICS, *plugin_metrics()])
        elif key == "default":
            chosen.extend(DEFAULT_METRICS)
        elif key in _ALIASES:
            chosen.append(_ALIASES[key])
        elif key and find_metric(key) is not None:
            chosen.append(key)
        elif key:
            unknown.append(raw)
    if unknown:
        known = ", ".join([*METRICS, *plugin_metrics()])
        raise ValueError(f"unknown metric(s) {', '.join(unknown)}; choose from {known}, default or all")
    return [metric for n in dict.fromkeys(chosen) if (metric := find_metric(n)) is not None]
