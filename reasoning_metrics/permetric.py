"""A model per metric: what a ``--model-for`` key names, and the scoring plans it makes.

The CK12 paper scored Reasoning Alignment alone with all-mpnet-base-v2 and every other score
with roscoe-512-roberta. Each role's model (``--embedder``, ``--nli``...) is every metric's
default; a metric, or a group of them, can be given its own: ``{"alignment": "all-mpnet-base-v2"}``
(the paper's recipe: ``alignment`` is Reasoning Alignment only),
``{"reference": "all-mpnet-base-v2"}`` (every score against the reference),
``{"faithfulness_token.token_embedder": "roberta-base"}``. A key is a metric (any name
:func:`~reasoning_metrics.metric_table.resolve` takes, or ``alignment``) or a group of :data:`GROUPS`,
with ``.ROLE`` when the metric needs more than one model. Metrics that end up with the same
models are scored together, each model called once per chunk (:func:`plans`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kg.errors import SettingError
from reasoning_metrics.metric_table import METRICS, Metric, resolve
from reasoning_metrics.models import ROLES
from reasoning_metrics.scales import SCALE_NAME, SCALED
from reasoning_metrics.slots import ModelArg, ModelSlots, model_name
from reasoning_metrics.step_thresholds import EncoderCalibration, calibration

GROUPS: dict[str, tuple[str, ...]] = {
    "reference": tuple(m.name for m in METRICS.values() if m.needs_reference),
}
"""Group name -> its metrics: ``reference`` is every score that compares the chain with the reference."""

SHORT_NAMES: dict[str, str] = {"alignment": "reasoning_alignment"}
"""Key -> the one metric it names: ``alignment`` is the paper's Reasoning Alignment column, the only score
the CK12 paper gave all-mpnet-base-v2 (hallucination and redundancy also read the reference but kept
roscoe-512-roberta)."""

Assigned = dict[str, dict[str, ModelArg]]
"""Metric name -> role -> the model that metric uses in that role instead of the role's own."""


class ModelKeyError(ValueError):
    """A ``metric_models`` key that cannot be used: the ``key`` and the ``problem`` with it."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


@dataclass(frozen=True)
class ScorePlan:
    """A job's score plan, built once by :func:`score_plan` and handed down to every layer that needs it:
    the metrics computed and each metric's own models (by role; per language as the model spec says)."""

    metrics: tuple[Metric, ...]
    assigned: Assigned

    @property
    def names(self) -> list[str]:
        """The metrics' registry names, in order."""
        return [m.name for m in self.metrics]


def score_plan(metrics: Sequence[str] | None = None, metric_models: Mapping[str, ModelArg] | None = None) -> ScorePlan:
    """The plan of ``metrics`` (names, ROSCOE keys, ``default``/``all``; the default five when None) with
    ``metric_models`` assigned (:func:`assign_models`): made once by whoever composes the job.

    Raises :class:`~kg.errors.SettingError` on ``metrics`` for an unknown metric, on ``metric_models`` (the key at
    fault as its value) for a model no computed metric uses; each edge words the setting as its own."""
    try:
        chosen = resolve(metrics)
    except ValueError as exc:
        raise SettingError("metrics", None, str(exc)) from None
    try:
        return ScorePlan(tuple(chosen), assign_models(metric_models, chosen))
    except ModelKeyError as exc:
        raise SettingError("metric_models", exc.key, exc.problem) from None


def assign_models(given: Mapping[str, ModelArg] | None, metrics: Sequence[Metric]) -> Assigned:
    """Each ``KEY: model`` of ``given`` as the metrics and roles it sets; later keys win.

    Raises :class:`ModelKeyError` (a ``ValueError`` starting with the key): an unknown metric, group or role, a metric not
    among ``metrics`` (a model for a score that is not computed), a role the metric does not use,
    or no role named for a metric that uses several.
    """
    chosen = {m.name: m for m in metrics}
    assigned: Assigned = {}
    for key, model in (given or {}).items():
        name, _, role = key.strip().partition(".")
        members = _members(name, key)
        computed = [chosen[n] for n in members if n in chosen]
        if not computed:
            what = f"no {name} metric is" if name in GROUPS else f"{members[0]} is not"
            raise ModelKeyError(
                key, f"{what} among the metrics computed ({', '.join(chosen)}); add it to them or drop this model"
            )
        if role and role not in ROLES:
            raise ModelKeyError(key, f"unknown model role {role!r}; one of {', '.join(ROLES)}")
        targets = [m for m in computed if not role or role in m.models]
        if not targets:
            uses = ", ".join(sorted({r for m in computed for r in m.models}))
            raise ModelKeyError(key, f"{name} uses no {role} model (it uses {uses})")
        for metric in targets:
            roles = sorted(metric.models)
            if not role and len(roles) > 1:
                raise ModelKeyError(
                    key, f"{metric.name} uses {' and '.join(roles)} models; name one, as {metric.name}.{roles[0]}=MODEL"
                )
            assigned.setdefault(metric.name, {})[role or roles[0]] = model
    return assigned


def _members(name: str, key: str) -> tuple[str, ...]:
    if name.lower() in GROUPS:
        return GROUPS[name.lower()]
    if name.lower() in SHORT_NAMES:
        return (SHORT_NAMES[name.lower()],)
    try:
        found = resolve([name]) if name.lower() not in ("all", "default") else []
    except ValueError:
        found = []
    if len(found) != 1:
        groups = ", ".join(GROUPS)
        raise ModelKeyError(key, f"unknown metric {name!r}; name a metric ({', '.join(METRICS)}) or a group ({groups})")
    return (found[0].name,)


def base_roles(metrics: Iterable[Metric], assigned: Assigned) -> set[str]:
    """The roles whose own model (not a metric's) some metric uses."""
    return {role for m in metrics for role in m.models if role not in assigned.get(m.name, {})}


def metrics_using(role: str) -> list[str]:
    """The metrics that need a ``role`` model, for messages."""
    return [m.name for m in METRICS.values() if role in m.models]


@dataclass
class MetricPlan:
    """Metrics scored with the same models."""

    metrics: list[Metric]
    slots: ModelSlots
    own: bool
    """Whether these metrics have models of their own (``False``: the roles' models)."""

    @property
    def roles(self) -> list[str]:
        """The roles these metrics need."""
        return sorted({role for m in self.metrics for role in m.models})


def plans(metrics: Sequence[Metric], slots: ModelSlots, assigned: Assigned) -> list[MetricPlan]:
    """The metrics split by the models they use; the plan of the roles' own models first."""
    groups: dict[tuple[Any, ...], tuple[dict[str, ModelArg], list[Metric]]] = {}
    for metric in metrics:
        own = assigned.get(metric.name, {})
        key = tuple(sorted((role, _identity(arg)) for role, arg in own.items()))
        groups.setdefault(key, (own, []))[1].append(metric)
    out = []
    for key, (own, members) in sorted(groups.items(), key=lambda item: bool(item[0])):
        plan_slots = slots.overridden(own, _setting_key(members, {m.name for m in metrics})) if key else slots
        out.append(MetricPlan(members, plan_slots, bool(key)))
    return out


def encoder_of(plan: MetricPlan, lang: str) -> str | None:
    """The own name of the encoder ``plan``'s metrics use on ``lang``'s chains (loaded if it is not yet);
    ``None`` when they need none or it could not be loaded."""
    if "encoder" not in plan.roles:
        return None
    model, _ = plan.slots.get("encoder", lang)
    return None if model is None else model_name(model)


@dataclass(frozen=True)
class JobCalibration:
    """What one language's chains of a job are read with: the step-flag thresholds of the encoder whose
    similarities flag the steps, and each metric's encoder's floor and separation. Scoring applies it and
    the score header states it; both get it from :func:`job_calibration`."""

    flagging: EncoderCalibration
    """The encoder whose similarities flag the steps: the first plan's that has one (the roles' own first)."""
    metrics: dict[str, EncoderCalibration]
    """Metric -> the calibration of the encoder that scored it (the flagging one for a metric without)."""

    def calibrated(self, scores: Mapping[str, float | None]) -> dict[str, float]:
        """Each scaled metric's calibrated reading, where its encoder has a floor."""
        out = {}
        for name, value in scores.items():
            reading = self.metrics[name].calibrated(name, value) if name in self.metrics else None
            if reading is not None:
                out[name] = reading
        return out

    def header(self) -> dict[str, Any]:
        """The calibration as the score header states it: the scale, and per metric its encoder, floor and separation."""
        metrics = {}
        for name, cal in self.metrics.items():
            scaled = name in SCALED and cal.floor is not None
            metrics[name] = {
                "encoder": cal.encoder,
                "floor": cal.floor if scaled else None,
                "separation": cal.separation.get(name),
            }
        return {"scale": SCALE_NAME, "metrics": metrics}


def job_calibration(scoring_plans: Sequence[MetricPlan], lang: str) -> JobCalibration:
    """The one lookup of what ``lang``'s chains are flagged and rescaled with, by the loaded encoders' names."""
    flagging = calibration(next((n for p in scoring_plans if (n := encoder_of(p, lang))), None), lang)
    metrics = {}
    for plan in scoring_plans:
        own = calibration(encoder_of(plan, lang), lang) if "encoder" in plan.roles else None
        for m in plan.metrics:
            metrics[m.name] = own if own is not None and "encoder" in m.models else flagging
    return JobCalibration(flagging, metrics)


def _identity(arg: ModelArg) -> Any:
    """What makes two model arguments the same model: the text of a spec, the object of an adapter."""
    if isinstance(arg, str) or arg is None:
        return ("spec", arg)
    if isinstance(arg, Mapping):
        return ("by-lang", tuple(sorted((lang, _identity(v)) for lang, v in arg.items())))
    return ("adapter", id(arg))


def _setting_key(members: list[Metric], chosen: set[str]) -> str:
    """The ``metric_models`` key to name in a warning about these metrics' encoder: the metric if there is
    one, their group if they are all of it that is computed, else the first of them."""
    names = {m.name for m in members}
    group = next((g for g, ms in GROUPS.items() if len(names) > 1 and names == set(ms) & chosen), None)
    return group or members[0].name
