"""The detectors on chains the scorer has already scored: what ``k12eval score`` adds to each record.

Nothing is computed twice and no second rule is written: ROSCOE's per-step parts
are the scorer's own :class:`~reasoning_metrics.records.ChainScores` (the cos* of
each step to its best source sentence and to the most similar earlier step, what
:func:`.rules.baseline.roscoe_scores` gives the meta-evaluation), contradictions come from :func:`.rules.contradiction.step_contradictions`
with the scorer's NLI model through its cache, and :func:`.aggregate_rule.assess_one`
applies the rule of docs/detectors.md.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reasoning_metrics import batching
from reasoning_metrics.cache import ArrayCache, text_key
from reasoning_metrics.guard import Outcome
from reasoning_metrics.protocols import NLIModel
from reasoning_metrics.reasons import reason
from reasoning_metrics.records import ChainScores
from reasoning_metrics.verify.aggregate_rule import assess_one, without_reference
from reasoning_metrics.verify.detector import Reference
from reasoning_metrics.verify.flags import SolutionAssessment
from reasoning_metrics.verify.judge_log import judge_resumably
from reasoning_metrics.verify.registry import DETECTORS as REGISTRY
from reasoning_metrics.verify.rules.arithmetic import StepCheck
from reasoning_metrics.verify.rules.contradiction import step_contradictions
from reasoning_metrics.verify.rules.judge import judge_name
from reasoning_metrics.verify.rules.prm import StepRewardModel
from runners.backends.base import Backend, SamplingParams

GIVEN_ONLY = ("judged", "prm", "rollouts")
"""Evidence ``k12eval score`` has only when the user gives its model: the judge's backend (``--judge-model``),
a process reward model (``--prm``), a rollout backend (never)."""
DETECTORS = tuple(name for name, detector in REGISTRY.items() if not set(GIVEN_ONLY) & detector.needs)
"""What ``k12eval score`` always names (each runs where its model is there): every registered detector
but the judge, the process reward model and rollouts, which need a model the user names; ``judge`` and
``prm`` are added to a score header when ``--judge-model`` and ``--prm`` are given."""
NO_JUDGE = reason("judge_not_asked")
NO_ENCODER = reason("no_similarities")


@dataclass(frozen=True)
class ScoredSolution:
    """What the aggregate reads of a scored chain."""

    id: str
    problem: str
    steps: tuple[str, ...]


def scored_solutions(scored: Sequence[ChainScores], problems: Mapping[str, str]) -> list[ScoredSolution]:
    """What the detectors read of each scored chain: its id, the question as the model saw it, its steps."""
    return [ScoredSolution(s.id, problems[s.id], tuple(step.text for step in s.steps)) for s in scored]


def roscoe_detail(scores: ChainScores) -> ChainScores | None:
    """The chain's scores when an encoder ran on every step (what the rule reads), else ``None``."""
    if not scores.steps or any(step.source_similarity is None for step in scores.steps):
        return None
    return scores


class _CachedNLI:
    """An NLI model seen through the scorer's batching: distinct pairs once, length-sorted, cached on disk."""

    def __init__(self, model: NLIModel, batch_size: int, cache: ArrayCache | None) -> None:
        self.name = model.name
        self._model, self._batch_size, self._cache = model, batch_size, cache

    def nli(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return batching.nli(self._model, pairs, self._batch_size, self._cache)


def _step_rewards(
    prm: StepRewardModel, solutions: Sequence[ScoredSolution], batch_size: int, cache: ArrayCache | None
) -> list[list[float] | None]:
    """The PRM's P(correct) per step of each solution, one PRM batch per call (its ``batch_size`` where it has one,
    else ``batch_size``), each call's answers cached as they come: a job stopped inside a chunk does not ask the
    PRM again for what it had answered. A solution too long for the PRM (``None``) is not cached."""
    items = [(s.problem, s.steps) for s in solutions]

    def compute(batch: list[tuple[str, tuple[str, ...]]]) -> list[np.ndarray]:
        found = prm.step_probabilities(batch)
        return [np.array([np.nan]) if one is None else np.asarray(one) for one in found]

    rows = batching.cached_map(
        items,
        [text_key(problem, *steps) for problem, steps in items],
        compute,
        size=lambda item: len(item[0]) + sum(map(len, item[1])),
        batch_size=getattr(prm, "batch_size", batch_size),  # the transformers PRM's own: not part of the protocol
        cache=cache,
        namespace=f"prm:{prm.name}",
    )
    return [row.tolist() if np.isfinite(row).all() else None for row in rows]


def assess_scored(
    scored: Sequence[ChainScores],
    problems: Mapping[str, str],
    nli: Mapping[str, NLIModel | str],
    *,
    premises: Mapping[str, str] | None = None,
    references: Mapping[str, Reference] | None = None,
    batch_size: int = 32,
    cache: ArrayCache | None = None,
    prm: StepRewardModel | None = None,
    judge: Backend | None = None,
    judge_params: SamplingParams | None = None,
    checks: Sequence[Outcome[list[StepCheck]]] | None = None,
    judge_log: Path | None = None,
) -> list[SolutionAssessment]:
    """The aggregate's assessment of each scored chain, in order.

    ``problems``: chain id -> the question as the model saw it (its numbers are the
    givens). ``premises``: chain id -> what each step is checked against for
    contradictions besides the earlier steps (default: the problem; for a choice
    question pass the stem alone, since its options are candidates, not facts).
    ``nli``: language -> the NLI model, or the reason there is none (then the
    contradiction detector is reported unavailable with it, and no number is written).
    All pairs of all chains of one language go to the model together. ``references``: chain id ->
    the gold answer, teacher's analysis and grading, where the bank has an analysis. ``prm``: a process reward
    model, run on all the chains at once (its detector runs only when one is given). ``judge``: an LLM judge's
    backend, asked for every chain's first wrong step in one batch (:func:`.rules.judge.judge_solutions`, its
    prompt in the chain's language); its flags name the judge's model, as the PRM's name the PRM. ``judge_log``: a
    file its answers are appended to as they come and read back from (:func:`.judge_log.judge_resumably`), so a job
    stopped before its chains' records were written does not ask the judge again. ``checks``: each chain's
    :func:`~.aggregate_rule.checks_of` of its :func:`scored_solutions`, where the caller has them (``score`` does:
    the combiner reads them too); computed here otherwise.
    """
    references = references or {}
    premises = premises or problems
    solutions = scored_solutions(scored, problems)
    contradictions: dict[int, list[float]] = {}
    for lang in sorted({s.lang for s in scored}):
        model = nli.get(lang, f"no NLI model for {lang} text")
        if isinstance(model, str):
            continue
        members = [k for k, s in enumerate(scored) if s.lang == lang]
        found = step_contradictions(
            [(premises[solutions[k].id], solutions[k].steps) for k in members],
            _CachedNLI(model, batch_size, cache),
            batch_size=sys.maxsize,  # all pairs at once: the cached model dedups and batches them itself
        )
        contradictions.update(zip(members, found, strict=True))
    rewards = _step_rewards(prm, solutions, batch_size, cache) if prm is not None else None
    verdicts = (
        judge_resumably(solutions, judge, judge_log, params=judge_params) if judge is not None and solutions else None
    )
    models = {"judged": judge_name(judge)} if judge is not None else {}
    if prm is not None:
        models["prm"] = prm.name
    out = []
    for k, (solution, scores) in enumerate(zip(solutions, scored, strict=True)):
        roscoe = roscoe_detail(scores)
        unavailable = {}
        if verdicts is None:
            unavailable["judge"] = NO_JUDGE
        elif verdicts[k].first_error is None:
            unavailable["judge"] = reason("judge_unreadable", verdicts[k].error or "no step named")
        if rewards is not None and rewards[k] is None:
            unavailable["prm"] = reason("prm_too_long")
        if roscoe is None:
            unavailable["roscoe"] = NO_ENCODER
        reference = references.get(solution.id)
        if reference is None:
            unavailable.update(without_reference())
        if k not in contradictions:
            why = nli.get(scores.lang, reason("no_model", "nli", scores.lang))
            unavailable["contradiction"] = why if isinstance(why, str) else reason("no_nli_result")
        out.append(
            assess_one(
                solution,
                roscoe=roscoe,
                contradictions=contradictions.get(k),
                reference=reference,
                prm=rewards[k] if rewards is not None else None,
                judged=verdicts[k].first_error if verdicts is not None else None,
                unavailable=unavailable,
                models=models,
                checks=checks[k] if checks is not None else None,
            )
        )
    return out
