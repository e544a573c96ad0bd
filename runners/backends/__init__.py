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


def backend_class(name: str) -> type:
    """The class registered under ``name``; an unknown name raises :class:`InputError` listing the known ones."""
    try:
        target = BACKENDS[name]
    except KeyError:
        raise InputError(f"unknown backend {name!r}; choose one of: {', '.join(BACKENDS)}") from None
    module, _, attribute = target.partition(":")
    cls: type = getattr(importlib.import_module(module), attribute)
    return cls


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
