"""``calibrate``: fit a combiner on labelled sets (one half of each), through the same detectors as
``k12eval score`` and ``meta-eval``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from kg.errors import InputError
from reasoning_metrics.combine.features import feature_names
from reasoning_metrics.combine.fit import fit_combiner
from reasoning_metrics.combine.model import Combiner
from reasoning_metrics.metaeval.combined import solution_language, training_set
from reasoning_metrics.metaeval.data import LabelledSolution
from reasoning_metrics.metaeval.halves import half_indices
from reasoning_metrics.metaeval.lodo import Encoders, score_set, training_info
from reasoning_metrics.metaeval.sets import SetSpec, load_set

EncoderPicker = Callable[[Sequence[LabelledSolution]], tuple[Encoders | None, dict[str, str]]]
"""A set's solutions -> the encoder(s) to score them with and their names per language (the command
line's per-language rule: a Chinese set gets a Chinese-capable encoder)."""


def calibrate(
    specs: Sequence[SetSpec],
    *,
    half: str = "dev",
    encoder: Encoders | None = None,
    pick_encoder: EncoderPicker | None = None,
    grade: bool = True,
    folds: int = 5,
    seed: int = 0,
    package_version: str = "",
    cache: Any = False,
    min_correct: float = 0.0,
    by_language: Sequence[str] = (),
    language_min_correct: float | None = None,
) -> Combiner:
    """A combiner fitted on ``half`` (``dev``, ``confirm``, ``all``) of every set of ``specs``.

    With ``encoder`` (one for every set), or the one ``pick_encoder`` chooses for each set's solutions, the
    ROSCOE step scores are features too and each set's ``training`` entry names its encoder (``encoder``:
    language -> name). ``grade`` adds the final answer's grade where the data gives it
    (``meta.graded_correct`` / ``final_answer_correct``); ``min_correct`` bounds the threshold (see
    :func:`~reasoning_metrics.combine.fit.fit_combiner`).

    ``by_language``: languages (``zh``) that also get a combiner fitted on their own sets alone
    (``Combiner.languages``; a set's language is its solutions' majority), whose threshold keeps
    ``language_min_correct`` (default ``min_correct``) of its correct solutions correct; the pooled
    combiner still serves every other language.
    """
    if encoder is not None and pick_encoder is not None:
        raise ValueError("pass encoder or pick_encoder, not both")
    sets, roscoe, languages = [], False, []
    for spec in specs:
        solutions = load_set(spec)
        model, names = pick_encoder(solutions) if pick_encoder is not None else (encoder, None)
        scored = score_set(spec, solutions, model, cache, names)
        roscoe = roscoe or model is not None
        idx = half_indices(scored.solutions, half)
        languages.append(Counter(solution_language(scored.solutions[k]) for k in idx).most_common(1)[0][0])
        sets.append(
            training_set(
                spec.name,
                [scored.solutions[k] for k in idx],
                [scored.ctx.assessments[k] for k in idx],
                [scored.rows[k] for k in idx],
                training_info(scored, half),
            )
        )
    features = feature_names(roscoe=roscoe, grade=grade)
    pooled = fit_combiner(
        sets, features, folds=folds, seed=seed, package_version=package_version, min_correct=min_correct
    )
    missing = [lang for lang in by_language if lang not in languages]
    if missing:
        raise InputError(f"no {', '.join(missing)} set to fit a per-language combiner on")
    if not by_language:
        return pooled
    own_min = min_correct if language_min_correct is None else language_min_correct
    alone = {
        lang: fit_combiner(
            [s for s, lg in zip(sets, languages, strict=True) if lg == lang],
            features,
            folds=folds,
            seed=seed,
            package_version=package_version,
            min_correct=own_min,
        )
        for lang in sorted(set(by_language))
    }
    return replace(pooled, languages=alone)
