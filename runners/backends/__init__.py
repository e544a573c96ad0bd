"""Backends by name, imported lazily: nothing registers itself as an import side effect.

``get_backend("vllm", "Qwen/Qwen2.5-7B-Instruct", tensor_parallel_size=2)`` imports
``runners.backends.vllm`` only then; importing this package loads no model library.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from kg.errors import InputError
from runners.backends._common import clean_text
from runners.backends.base import (
    Backend,
    ChatMessages,
    GenerationRequest,
    GenerationResult,
    LoglikelihoodRequest,
    LoglikelihoodResult,
    SamplingParams,
)
from runners.backends.sampling import BASE_SAMPLING, CHAT_SAMPLING, default_sampling

BACKENDS: dict[str, str] = {
    "transformers": "runners.backends.transformers:TransformersBackend",
    "vllm": "runners.backends.vllm:VLLMBackend",
    "openai": "runners.backends.openai:OpenAIBackend",
    "replay": "runners.backends.replay:ReplayBackend",
}
"""Backend name -> ``module:Class``; the module is imported when the backend is asked for."""


ENTRY_POINT_GROUP = "k12eval.backends"
"""Entry-point group of backends other packages provide (``name = "package.module:Class"``); see docs/python.md."""


def backend_class(name: str) -> type:
    """The class registered under ``name``, built in or an installed package's ``k12eval.backends`` entry point.

    Entry points are read only for a name that is not built in, and loaded only when asked for.
    An unknown name raises :class:`InputError` listing the known ones.
    """
    if name in BACKENDS:
        module, _, attribute = BACKENDS[name].partition(":")
        cls: type = getattr(importlib.import_module(module), attribute)
        return cls
    from importlib.metadata import entry_points

    found = entry_points(group=ENTRY_POINT_GROUP)
    for entry in found:
        if entry.name == name:
            loaded: type = entry.load()
            return loaded
    known = [*BACKENDS, *sorted({e.name for e in found} - set(BACKENDS))]
    raise InputError(f"unknown backend {name!r}; choose one of: {', '.join(known)}")


def backend_options(name: str) -> dict[str, Any]:
    """The options ``name`` takes, with their defaults (``inspect.Parameter.empty`` when required)."""
    parameters = inspect.signature(backend_class(name)).parameters
    return {p.name: p.default for p in parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY}


def get_backend(name: str, model: str, **options: Any) -> Backend:
    """Create backend ``name`` for ``model``; options it does not take raise :class:`InputError`."""
    cls = backend_class(name)
    known = backend_options(name)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise InputError(
            f"backend {name!r} has no option {', '.join(map(repr, unknown))}; it takes: {', '.join(known)}"
        )
    backend: Backend = cls(model, **options)
    return backend


__all__ = [
    "BACKENDS",
    "BASE_SAMPLING",
    "CHAT_SAMPLING",
    "ENTRY_POINT_GROUP",
    "Backend",
    "ChatMessages",
    "GenerationRequest",
    "GenerationResult",
    "LoglikelihoodRequest",
    "LoglikelihoodResult",
    "SamplingParams",
    "backend_class",
    "backend_options",
    "clean_text",
    "default_sampling",
    "get_backend",
]
