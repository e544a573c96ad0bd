"""Score whole runs: chains in chunks, each model called once per chunk over all of its chains."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, Literal

from kg.errors import InputError
from kg.records import detect_language
from reasoning_metrics.cache import ArrayCache
from reasoning_metrics.chain_inputs import FILLERS, Prepared
from reasoning_metrics.guard import SCORE_BUDGET_S, checking, too_long_reason
from reasoning_metrics.metric_table import INPUT_MODEL, REFERENCE_INPUTS, SOURCE_INPUTS, Metric
from reasoning_metrics.permetric import (
    JobCalibration,
    MetricPlan,
    ScorePlan,
    base_roles,
    job_calibration,
    plans,
    score_plan,
)
from reasoning_metrics.reasons import code_of, reason, worded
from reasoning_metrics.records import Chain, ChainScores
from reasoning_metrics.slots import ModelArg, ModelSlots
from reasoning_metrics.split import split_reference, split_steps
from reasoning_metrics.step_detail import StepThresholds, step_details

DETAIL_INPUTS = frozenset(("sim_hs", "sim_hr", "sim_hh"))
"""Inputs computed for the per-step detail whenever the encoder is loaded anyway."""
GUARDED_TEXTS = 128
"""A chain with more texts than this (steps, source sentences and reference steps together), or
more than :data:`GUARDED_CHARS` characters in them, is scored on its own under the time budget
(:data:`reasoning_metrics.guard.SCORE_BUDGET_S`), model passes included, and recorded as not
scored (too long) when over it. Other chains are batched together: few texts, each cut to its
model's window, so their cost is bounded without a clock."""
GUARDED_CHARS = 20_000
"""See :data:`GUARDED_TEXTS`: ten times an ordinary chain with its question and analysis."""
MAX_STEPS = 2_000
"""A chain of more steps is not scored at all (too long): its step-by-step matrices alone
(``steps x steps``) would take gigabytes and minutes that no clock can interrupt."""


def score_chains(
    chains: Iterable[Chain],
    metrics: Sequence[str] | None = None,
    encoder: ModelArg = None,
    nli: ModelArg = None,
    token_embedder: ModelArg = None,
    lm: ModelArg = None,
    grammar: ModelArg = None,
    *,
    lang: Literal["zh", "en"] | None = None,
    batch_size: int = 32,
    chunk_size: int = 256,
    cache: ArrayCache | Path | str | bool | None = None,
    thresholds: StepThresholds | None = None,
    progress: Callable[[int], None] | None = None,
    metric_models: Mapping[str, ModelArg] | None = None,
    budget_s: float | None = SCORE_BUDGET_S,
) -> list[ChainScores]:
    """Score every chain: the functional door, which composes its plan and models once for :func:`iter_scores`.

    ``metrics``: names (or ROSCOE keys / paper names, ``all``); the CK12 paper's five by default.
    Models (``encoder``, ``nli``, ``token_embedder``, ``lm``, ``grammar``): an adapter, a hub id
    or folder, a ``{lang: ...}`` mapping, ``"none"``, or ``None`` for the default of the role
    (:data:`reasoning_metrics.models.DEFAULT_MODELS`), loaded only if a chosen metric needs it.
    ``metric_models``: a metric's (or group's) own model instead of its role's
    (:func:`reasoning_metrics.permetric.assign_models`: ``{"alignment": "all-mpnet-base-v2"}``);
    each record's ``metric_models`` names them. The other keywords are :func:`iter_scores`'s.
    """
    slots = ModelSlots(encoder=encoder, nli=nli, token_embedder=token_embedder, lm=lm, grammar=grammar)
    return list(
        iter_scores(
            chains,
            score_plan(metrics, metric_models),
            slots,
            lang=lang,
            batch_size=batch_size,
            chunk_size=chunk_size,
            cache=cache,
            thresholds=thresholds,
            progress=progress,
            budget_s=budget_s,
        )
    )


def iter_scores(
    chains: Iterable[Chain],
    plan: ScorePlan,
    slots: ModelSlots,
    *,
    lang: Literal["zh", "en"] | None = None,
    batch_size: int = 32,
    chunk_size: int = 256,
    cache: ArrayCache | Path | str | bool | None = None,
    thresholds: StepThresholds | None = None,
    progress: Callable[[int], None] | None = None,
    budget_s: float | None = SCORE_BUDGET_S,
) -> Iterator[ChainScores]:
    """Yield the scores of each chain, in order, ``chunk_size`` chains at a time.

    ``plan``: the metrics and each metric's own models (:func:`reasoning_metrics.permetric.score_plan`);
    ``slots``: the job's models (:class:`~reasoning_metrics.slots.ModelSlots`), both made once by whoever composes
    the job (the slots already holding what :func:`load_models` loaded).
    ``lang`` forces the language of every chain. Models see ``batch_size`` items per call.
    ``cache``: an :class:`ArrayCache`, a path to one, ``False`` for none, ``None``/``True`` for the default.
    ``progress`` is called with the number of chains scored so far.
    ``budget_s``: seconds a chain of more than :data:`GUARDED_TEXTS` texts may take (model passes
    and metrics); over it, the chain's scores are ``None`` and ``unavailable`` says it was too long.
    ``thresholds``: when the steps are flagged; by default each chain's encoder's own, fitted and
    stored with the loaded model's name (:func:`reasoning_metrics.permetric.job_calibration`, which the
    score header states too).
    """
    chosen = list(plan.metrics)
    scoring_plans = plans(chosen, slots, plan.assigned)
    store = open_cache(cache)
    done = 0
    iterator = iter(chains)
    try:
        while chunk := list(islice(iterator, chunk_size)):
            prepared = [prepare(c, lang) for c in chunk]
            batched = [p for p in prepared if not _guarded(p)]
            scored = dict(
                zip(
                    (id(p) for p in batched),
                    _score_group(batched, scoring_plans, chosen, thresholds, batch_size, store),
                    strict=True,
                )
            )
            for p in prepared:
                if len(p.hypothesis) > MAX_STEPS:
                    reason = f"not scored (too long: {len(p.hypothesis):,} steps, over the {MAX_STEPS:,} of a chain)"
                    scored[id(p)] = _not_scored(p, chosen, reason)
                elif id(p) not in scored:  # a long chain: alone, under the clock
                    group = partial(_score_group, [p], scoring_plans, chosen, thresholds, batch_size, store)
                    outcome = checking(group, budget_s)
                    if outcome.value is not None:
                        scored[id(p)] = outcome.value[0]
                    else:
                        reason = too_long_reason(budget_s, "scored") if outcome.status == "too_long" else outcome.reason
                        scored[id(p)] = _not_scored(p, chosen, reason.replace("not checked", "not scored"))
                yield scored[id(p)]
            done += len(chunk)
            if progress:
                progress(done)
    finally:
        if store is not None and not isinstance(cache, ArrayCache):
            store.close()


def _guarded(p: Prepared) -> bool:
    texts = [*p.hypothesis, *p.source, *(p.reference or [])]
    return len(texts) > GUARDED_TEXTS or sum(map(len, texts)) > GUARDED_CHARS


def _score_group(
    prepared: list[Prepared],
    scoring_plans: list[MetricPlan],
    chosen: list[Metric],
    thresholds: StepThresholds | None,
    batch_size: int,
    store: ArrayCache | None,
) -> list[ChainScores]:
    """The records of ``prepared``, each model called once over all of them per plan."""
    if not prepared:
        return []
    per_plan = []
    for plan in scoring_plans:
        # Each plan fills its own copy: two plans compute the same input with different models.
        mine = prepared if len(scoring_plans) == 1 else [replace(p, inputs={}, missing={}) for p in prepared]
        _compute_inputs(mine, plan.metrics, plan.slots, batch_size, store)
        per_plan.append(mine)
    calibrations = {lang: job_calibration(scoring_plans, lang) for lang in {p.lang for p in prepared}}
    return [
        _assemble(
            [(plan, run[k]) for plan, run in zip(scoring_plans, per_plan, strict=True)],
            chosen,
            thresholds,
            calibrations[prepared[k].lang],
        )
        for k in range(len(prepared))
    ]


def _not_scored(p: Prepared, chosen: list[Metric], reason: str) -> ChainScores:
    """The record of a chain whose scoring went over its budget (or failed): its steps, no scores."""
    return ChainScores(
        id=p.id,
        lang=p.lang,
        scores={m.name: None for m in chosen},
        unavailable={m.name: reason for m in chosen},
        steps=step_details(p.hypothesis, None, None, None, None, StepThresholds()),
        source_steps=p.source,
        reference_steps=p.reference or [],
    )


def chain_language(chain: Chain, lang: Literal["zh", "en"] | None = None) -> Literal["zh", "en"]:
    """``lang``, else the chain's own, else ``zh`` if any of source, hypothesis or reference reads as Chinese.

    One encoder must embed all three texts, and the multilingual one also reads English.
    """
    if lang is not None:
        return lang
    if chain.lang is not None:
        return chain.lang
    texts = [chain.source, _text(chain.hypothesis), _text(chain.reference)]
    return "zh" if any(detect_language(t) == "zh" for t in texts if t.strip()) else "en"


def load_models(
    chains: Iterable[Chain],
    plan: ScorePlan,
    slots: ModelSlots,
    lang: Literal["zh", "en"] | None = None,
    roles: Iterable[str] = (),
) -> dict[str, Any]:
    """Load now into ``slots`` (which keep them, for :func:`iter_scores`) every model the metrics of ``plan`` need
    for the languages of ``chains``: ``{role: {lang: model}}``.

    For the command line, which should stop on a model that does not load
    (a typo, no network) rather than write records saying so: raises
    :class:`~kg.errors.InputError` with the reason. Roles without a model for a
    language (``none``, no default) map to ``"none"`` there. ``roles`` are loaded
    too whatever the metrics need (the detectors' NLI model). The metrics' own models are loaded too and
    returned under ``metric_models``, keyed ``metric.role``; a role's own model is loaded only when a metric
    uses it.
    """
    chosen, assigned = list(plan.metrics), plan.assigned
    languages = sorted({chain_language(c, lang) for c in chains})
    loaded: dict[str, Any] = {}
    for role in sorted(base_roles(chosen, assigned) | set(roles)):
        loaded[role] = _load_role(slots, role, languages)
    own: dict[str, Any] = {}
    for group in plans(chosen, slots, assigned):
        if group.own:
            for metric in group.metrics:
                for role in assigned[metric.name]:
                    own[f"{metric.name}.{role}"] = _load_role(group.slots, role, languages)
    if own:
        loaded["metric_models"] = own
    return loaded


def _load_role(slots: ModelSlots, role: str, languages: Sequence[str]) -> dict[str, Any]:
    """``{lang: model}`` for ``role``, ``"none"`` where there is none; a model that fails to load is an error."""
    found: dict[str, Any] = {}
    for language in languages:
        model, why = slots.get(role, language)
        if why and code_of(why) == "not_loaded":
            raise InputError(f"{worded(why)} (choose another, or 'none' to score without it)")
        found[language] = model if model is not None else "none"
    return found


def prepare(chain: Chain, lang: Literal["zh", "en"] | None = None) -> Prepared:
    """Split a chain's texts into steps in its language (:func:`chain_language`)."""
    language = chain_language(chain, lang)
    hypothesis = _steps(chain.hypothesis, lambda t: split_steps(t, language))
    reference = None if chain.reference is None else _steps(chain.reference, lambda t: split_reference(t, language))
    return Prepared(chain.id, language, split_steps(chain.source, language), hypothesis, reference)


def _text(value: str | list[str] | None) -> str:
    return "\n".join(value) if isinstance(value, list) else value or ""


def _steps(value: str | list[str], split: Callable[[str], list[str]]) -> list[str]:
    if isinstance(value, list):
        return [s.strip() for s in value if s and s.strip()]
    return split(value)


def open_cache(cache: ArrayCache | Path | str | bool | None) -> ArrayCache | None:
    """The cache a ``cache`` argument names: ``False`` none, ``None``/``True`` the default, else that one."""
    if cache is False:
        return None
    if isinstance(cache, ArrayCache):
        return cache
    return ArrayCache(None if cache in (None, True) else Path(str(cache)))


def _compute_inputs(
    chains: list[Prepared],
    metrics: list[Metric],
    slots: ModelSlots,
    batch_size: int,
    cache: ArrayCache | None,
) -> None:
    """Fill ``inputs`` (or ``missing``) of every non-empty chain, one model pass per role and model."""
    wanted: set[str] = {i for m in metrics for i in m.inputs}
    roles = {INPUT_MODEL[i] for i in wanted}
    if "encoder" in roles:
        wanted |= DETAIL_INPUTS
    for role in sorted(roles):
        groups: dict[int, tuple[object, list[Prepared]]] = {}
        for chain in chains:
            if not chain.hypothesis:
                continue
            model, why = slots.get(role, chain.lang)
            if model is None:
                chain.missing[role] = why or reason("not_given", role)
                continue
            groups.setdefault(id(model), (model, []))[1].append(chain)
        for model, members in groups.values():
            FILLERS[role](model, members, wanted, batch_size, cache)


def _assemble(
    parts: list[tuple[MetricPlan, Prepared]],
    chosen: list[Metric],
    thresholds: StepThresholds | None,
    calibration: JobCalibration,
) -> ChainScores:
    """One chain's record from what each plan computed for it; the step detail from the first
    plan that has each input (the roles' own models first), flagged with ``thresholds`` or, when
    ``None``, with ``calibration``'s (the first plan's encoder that has one, which gave the similarities)."""
    scores: dict[str, float | None] = {}
    unavailable: dict[str, str] = {}
    inputs: dict[str, Any] = {}
    models: dict[str, str] = {}
    own: dict[str, dict[str, str]] = {}
    p = parts[0][1]
    for plan, part in parts:
        for metric in plan.metrics:
            reason = _why_unavailable(part, metric)
            if reason:
                scores[metric.name], unavailable[metric.name] = None, reason
            else:
                scores[metric.name] = metric.fn(*(part.inputs[i] for i in metric.inputs))
        names = {
            role: name for role in plan.roles if role not in part.missing and (name := plan.slots.name(role, part.lang))
        }
        for key, value in part.inputs.items():
            inputs.setdefault(key, value)
        if plan.own:
            own.update({m.name: {r: names[r] for r in sorted(m.models) if r in names} for m in plan.metrics})
        else:
            models = names
    return ChainScores(
        id=p.id,
        lang=p.lang,
        scores={m.name: scores[m.name] for m in chosen},
        unavailable={m.name: unavailable[m.name] for m in chosen if m.name in unavailable},
        steps=step_details(
            p.hypothesis,
            inputs.get("sim_hs"),
            inputs.get("sim_hr"),
            inputs.get("sim_hh"),
            inputs.get("contra_hs"),
            thresholds or calibration.flagging.thresholds,
            inputs.get("contra_hh"),
        ),
        source_steps=p.source,
        reference_steps=p.reference or [],
        models=models,
        metric_models=own,
        calibrated=calibration.calibrated({m.name: scores[m.name] for m in chosen}),
    )


def _why_unavailable(p: Prepared, metric: Metric) -> str | None:
    """Why ``metric`` has no value for the chain (a reason code), or ``None`` if it can be computed."""
    if not p.hypothesis:
        return reason("no_steps")
    if any(i in REFERENCE_INPUTS for i in metric.inputs):
        if p.reference is None:
            return reason("no_reference")
        if not p.reference:
            return reason("reference_no_steps")
    if any(i in SOURCE_INPUTS for i in metric.inputs) and not p.source:
        # The reference averages an empty alignment to 0.0 here (and fails on max()); no number is better.
        return reason("source_no_sentences")
    for i in metric.inputs:
        role = INPUT_MODEL[i]
        if role in p.missing:
            return p.missing[role]
        if i in p.missing:
            return p.missing[i]
    return None
