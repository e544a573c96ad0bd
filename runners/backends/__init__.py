"""Backends by name, imported lazily: nothing registers itself as an import side effect.

``get_backend("vllm", "Qwen/Qwen2.5-7B-Instruct", tensor_parallel_size=2)`` imports
``runners.backends.vllm`` only then; importing this package loads no model library.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator, Sequence
from typing import Any

from kg.errors import InputError
from runners.backends._shared import clean_text
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
from runners.stopping import shielded

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
            return _load_plugin(entry)
    known = [*BACKENDS, *plugin_backends()]
    raise InputError(f"unknown backend {name!r}; choose one of: {', '.join(known)}")


def _load_plugin(entry: Any) -> type:
    """The class an entry point names, or one :class:`InputError` line naming the package that broke."""
    dist = getattr(getattr(entry, "dist", None), "name", None)
    value = getattr(entry, "value", entry.name)
    where = f"{value} of package {dist}" if dist else value
    try:
        loaded = entry.load()
    except Exception as exc:  # anything a third party's module raises on import: one line, not a traceback
        lines = str(exc).strip().splitlines()
        reason = f"{type(exc).__name__}: {lines[0].strip()[:300]}" if lines else type(exc).__name__
        raise InputError(
            f"backend {entry.name!r} ({ENTRY_POINT_GROUP} entry point {where}) is broken: {reason}"
        ) from None
    if not isinstance(loaded, type):
        raise InputError(f"backend {entry.name!r} ({ENTRY_POINT_GROUP} entry point {where}) is not a class")
    return loaded


def plugin_backends() -> list[str]:
    """The names of the installed packages' backends (``k12eval.backends`` entry points), sorted; none loaded."""
    from importlib.metadata import entry_points

    return sorted({entry.name for entry in entry_points(group=ENTRY_POINT_GROUP)} - set(BACKENDS))


def server_side_model(name: str) -> bool:
    """Whether backend ``name`` takes the model as written (a server's model name, a recorded file).

    Declared by the backend class (``server_side_model = True``); a class that does not say
    loads its model here, and the model resolver turns the name into a folder first.
    """
    return bool(getattr(backend_class(name), "server_side_model", False))


def protocol_role(backend: str | type) -> str:
    """How a bank's protocol asks ``backend`` (a name or a backend class): ``local``, ``api`` or ``generate``.

    Declared by the backend class (``protocol_role``, see :class:`runners.backends.base.Backend`); a class
    that does not say only generates answers (:func:`runners.protocol.default_strategy`).
    """
    cls = backend_class(backend) if isinstance(backend, str) else backend
    return str(getattr(cls, "protocol_role", "generate"))


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
    backend: Backend = cls(model, **options)
    check = getattr(backend, "check", None)
    if callable(check):  # refuse a setting that would fail every request, before the first one
        check()
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
    "generation_stream",
    "get_backend",
    "plugin_backends",
    "protocol_role",
    "server_side_model",
    "streams",
]
