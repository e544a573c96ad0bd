"""Backends by name, imported lazily: nothing registers itself as an import side effect.

``get_backend("vllm", "Qwen/Qwen2.5-7B-Instruct", tensor_parallel_size=2)`` imports
``runners.backends.vllm`` only then; importing this package loads no model library.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator, Sequence
from typing import Any

from kg import plugins
from kg.errors import InputError
from runners.backends._shared import clean_text
from runners.backends.base import (
    PROTOCOL_ROLES,
    Backend,
    ChatMessages,
    GenerationRequest,
    GenerationResult,
    LoglikelihoodRequest,
    LoglikelihoodResult,
    SamplingParams,
    check_backend_class,
)
from runners.backends.sampling import BASE_SAMPLING, CHAT_SAMPLING, default_sampling
from runners.stopping import shielded

BACKENDS: dict[str, str] = {
    "transformers": "runners.backends.transformers:TransformersBackend",
    "vllm": "runners.backends.vllm:VLLMBackend",
    "openai": "runners.backends.openai:OpenAIBackend",
    "replay": "runners.backends.replay:ReplayBackend",
}
"""Backend name -> ``module:Class``; the module is imported when the backend is asked for."""


ENTRY_POINT_GROUP = plugins.BACKEND_GROUP
"""Entry-point group of backends other packages provide (``name = "package.module:Class"``); see docs/python.md."""


def backend_class(name: str) -> type[Backend]:
    """The class registered under ``name``, built in or an installed package's ``k12eval.backends`` entry point.

    Entry points are read only for a name that is not built in, and loaded only when asked for; the class is
    checked (:func:`~runners.backends.base.check_backend_class`: a :class:`Backend` subclass whose capabilities
    have the right types) before it is used. An unknown name raises :class:`InputError` listing the known ones.
    """
    if name in BACKENDS:
        module, _, attribute = BACKENDS[name].partition(":")
        return _checked(getattr(importlib.import_module(module), attribute), f"backend {name!r}")
    entry = plugins.find(ENTRY_POINT_GROUP, name)
    if entry is None:
        known = [*BACKENDS, *plugin_backends()]
        raise InputError(f"unknown backend {name!r}; choose one of: {', '.join(known)}")
    return _checked(plugins.load(entry, "backend"), f"backend {name!r} ({plugins.where(entry)})")


def _checked(cls: object, what: str) -> type[Backend]:
    problem = check_backend_class(cls)
    if problem is not None:
        raise InputError(f"{what} {problem}")
    assert isinstance(cls, type) and issubclass(cls, Backend)
    return cls


def backend_names() -> str:
    """The built-in backends as a help text says them: ``transformers, vllm, openai or replay``."""
    return plugins.or_list(list(BACKENDS))


def plugin_backends() -> list[str]:
    """The names of the installed packages' backends (``k12eval.backends`` entry points), sorted; none loaded."""
    return plugins.installed(ENTRY_POINT_GROUP, BACKENDS)


def server_side_model(name: str) -> bool:
    """Whether backend ``name`` takes the model as written (a server's model name, a recorded file):
    its class's :attr:`~runners.backends.base.Backend.server_side_model`."""
    return backend_class(name).server_side_model


def protocol_role(backend: str | type[Backend]) -> str:
    """How a bank's protocol asks ``backend`` (a name or a backend class): ``local``, ``api`` or ``generate``,
    its class's :attr:`~runners.backends.base.Backend.protocol_role`."""
    cls = backend_class(backend) if isinstance(backend, str) else backend
    return cls.protocol_role


def streams(backend: object) -> bool:
    """Whether ``backend`` hands its answers over as they finish (a ``generate_stream`` method)."""
    return callable(getattr(backend, "generate_stream", None))


def generation_stream(
    backend: Backend, requests: Sequence[GenerationRequest]
) -> Iterator[tuple[int, GenerationResult]]:
    """``(request index, result)`` for every request, each as soon as the backend hands it over.

    A backend with ``generate_stream`` (see :class:`runners.backends.base.Backend`) yields answers in the
    order they finish, each carrying its request's id; any other answers the whole batch through
    ``generate``. Every answer is handed over inside :func:`runners.stopping.shielded`, so that the
    caller's write of it is never cut by SIGINT or SIGTERM.
    """
    positions = {request.id: index for index, request in enumerate(requests)}
    if streams(backend) and len(positions) == len(requests):
        answered: set[int] = set()
        for result in backend.generate_stream(requests):  # type: ignore[attr-defined]
            index = positions.get(result.id)
            if index is None or index in answered:
                continue  # not one of ours, or a second answer: the first stands
            answered.add(index)
            with shielded():  # a backend shields its own hand-over; this one covers a plugin that does not
                yield index, result
        missing = [i for i in range(len(requests)) if i not in answered]
        with shielded():
            for index in missing:
                yield index, GenerationResult(requests[index].id, error="the backend gave no answer")
        return
    results = backend.generate(requests)
    with shielded():
        yield from enumerate(results)


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
    backend = cls(model, **options)
    backend.check()  # refuse a setting that would fail every request, before the first one
    return backend


__all__ = [
    "BACKENDS",
    "BASE_SAMPLING",
    "CHAT_SAMPLING",
    "ENTRY_POINT_GROUP",
    "PROTOCOL_ROLES",
    "Backend",
    "ChatMessages",
    "GenerationRequest",
    "GenerationResult",
    "LoglikelihoodRequest",
    "LoglikelihoodResult",
    "SamplingParams",
    "backend_class",
    "backend_names",
    "backend_options",
    "check_backend_class",
    "clean_text",
    "default_sampling",
    "generation_stream",
    "get_backend",
    "plugin_backends",
    "protocol_role",
    "server_side_model",
    "streams",
]
