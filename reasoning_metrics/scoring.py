"""Score whole runs: chains in chunks, each model called once per chunk over all of its chains."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any, Literal

from kg.errors import InputError
from kg.records import detect_language
from reasoning_metrics.cache import ArrayCache
from reasoning_metrics.features import FILLERS, Prepared
from reasoning_metrics.records import Chain, ChainScores
from reasoning_metrics.registry import INPUT_MODEL, REFERENCE_INPUTS, SOURCE_INPUTS, Metric, resolve
from reasoning_metrics.slots import LOAD_FAILED, ModelArg, ModelSlots
from reasoning_metrics.split import split_reference, split_steps
from reasoning_metrics.steps import StepThresholds, step_details

DETAIL_INPUTS = frozenset({"sim_hs", "sim_hr", "sim_hh"})
"""Inputs computed for the per-step detail whenever the encoder is loaded anyway."""


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
) -> list[ChainScores]:
    """Score every chain; see :func:`iter_scores` for the arguments."""
    return list(
        iter_scores(
            chains,
            metrics,
            encoder,
            nli,
            token_embedder,
            lm,
            grammar,
            lang=lang,
            batch_size=batch_size,
            chunk_size=chunk_size,
            cache=cache,
            thresholds=thresholds,
            progress=progress,
        )
    )


def iter_scores(
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
) -> Iterator[ChainScores]:
    """Yield the scores of each chain, in order, ``chunk_size`` chains at a time.

    ``metrics``: names (or ROSCOE keys / paper names, ``all``); the CK12 paper's five by default.
    Models (``encoder``, ``nli``, ``token_embedder``, ``lm``, ``grammar``): an adapter, a hub id
    or folder, a ``{lang: ...}`` mapping, ``"none"``, or ``None`` for the default of the role
    (:data:`reasoning_metrics.models.DEFAULT_MODELS`), loaded only if a chosen metric needs it.
    ``lang`` forces the language of every chain. Models see ``batch_size`` items per call.
    ``cache``: an :class:`ArrayCache`, a path to one, ``False`` for none, ``None``/``True`` for the default.
    ``progress`` is called with the number of chains scored so far.
    """
    chosen = resolve(metrics)
    slots = ModelSlots(encoder=encoder, nli=nli, token_embedder=token_embedder, lm=lm, grammar=grammar)
    store = open_cache(cache)
    thresholds = thresholds or StepThresholds()
    done = 0
    iterator = iter(chains)
    try:
        while chunk := list(islice(iterator, chunk_size)):
            prepared = [prepare(c, lang) for c in chunk]
            _compute_inputs(prepared, chosen, slots, batch_size, store)
            for p in prepared:
                yield _assemble(p, chosen, slots, thresholds)
            done += len(chunk)
            if progress:
                progress(done)
    finally:
        if store is not None and not isinstance(cache, ArrayCache):
            store.close()


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
    metrics: Sequence[str] | None,
    models: dict[str, ModelArg],
    lang: Literal["zh", "en"] | None = None,
    roles: Iterable[str] = (),
    model_resolver: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """Load now every model the metrics need for the languages of ``chains``: ``{role: {lang: model}}``.

    For the command line, which should stop on a model that does not load
    (a typo, no network) rather than write records saying so: raises
    :class:`~kg.errors.InputError` with the reason. Roles without a model for a
    language (``none``, no default) map to ``"none"`` there. ``roles`` are loaded
    too whatever the metrics need (the detectors' NLI model). ``model_resolver``: see
    :class:`~reasoning_metrics.slots.ModelSlots`.
    """
    slots = ModelSlots(model_resolver, **models)
    roles = sorted({role for m in resolve(metrics) for role in m.models} | set(roles))
    languages = sorted({chain_language(c, lang) for c in chains})
    loaded: dict[str, dict[str, Any]] = {}
    for role in roles:
        for language in languages:
            model, reason = slots.get(role, language)
            if reason and reason.startswith(LOAD_FAILED):
                raise InputError(f"{reason} (choose another, or 'none' to score without it)")
            loaded.setdefault(role, {})[language] = model if model is not None else "none"
    return loaded


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
            model, reason = slots.get(role, chain.lang)
            if model is None:
                chain.missing[role] = reason or f"no {role} model"
                continue
            groups.setdefault(id(model), (model, []))[1].append(chain)
        for model, members in groups.values():
            FILLERS[role](model, members, wanted, batch_size, cache)


def _assemble(p: Prepared, metrics: list[Metric], slots: ModelSlots, thresholds: StepThresholds) -> ChainScores:
    scores: dict[str, float | None] = {}
    unavailable: dict[str, str] = {}
    for metric in metrics:
        reason = _why_unavailable(p, metric)
        if reason:
            scores[metric.name], unavailable[metric.name] = None, reason
        else:
            scores[metric.name] = metric.fn(*(p.inputs[i] for i in metric.inputs))
    used = sorted({role for m in metrics for role in m.models})
    return ChainScores(
        id=p.id,
        lang=p.lang,
        scores=scores,
        unavailable=unavailable,
        steps=step_details(
            p.hypothesis,
            p.inputs.get("sim_hs"),
            p.inputs.get("sim_hr"),
            p.inputs.get("sim_hh"),
            p.inputs.get("contra_hs"),
            thresholds,
            p.inputs.get("contra_hh"),
        ),
        source_steps=p.source,
        reference_steps=p.reference or [],
        models={role: name for role in used if role not in p.missing and (name := slots.name(role, p.lang))},
    )


def _why_unavailable(p: Prepared, metric: Metric) -> str | None:
    """Why ``metric`` has no value for the chain, or ``None`` if it can be computed."""
    if not p.hypothesis:
        return "the chain has no steps"
    if any(i in REFERENCE_INPUTS for i in metric.inputs):
        if p.reference is None:
            return "no reference chain given"
        if not p.reference:
            return "the reference has no steps"
    if any(i in SOURCE_INPUTS for i in metric.inputs) and not p.source:
        # The reference averages an empty alignment to 0.0 here (and fails on max()); no number is better.
        return "the source has no sentences"
    for i in metric.inputs:
        role = INPUT_MODEL[i]
        if role in p.missing:
            return p.missing[role]
        if i in p.missing:
            return p.missing[i]
    return None
