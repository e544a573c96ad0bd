"""A fitted combiner: logistic weights over the step features (:mod:`.features`), a step threshold, and
where they came from. Predicting needs numpy only; fitting (:mod:`.fit`) needs scikit-learn.

``combiner.json``::

    {"format": "k12eval-combiner", "version": 1, "package_version": "0.1.0",
     "features": [...], "coefficients": [...], "intercept": -3.1, "threshold": 0.31,
     "C": 0.3, "training": [{"name": "gsm8k", "format": "processbench", "half": "dev", ...}], "cv": {...}}

The coefficients apply to the raw feature values (the standardisation used while fitting is folded in).
A step's probability of being the first wrong one, given that no earlier step was wrong, is
``p_k = sigmoid(features · coefficients + intercept)`` (the training rows stop at the first error, so
the model is a discrete-time hazard). The first suspect of a solution whose final answer was graded
wrong is the step most likely to be the first error, ``argmax_k p_k · Π_{j<k} (1 - p_j)``: such a
solution has an error somewhere, so it always gets one. Otherwise (graded right, or not graded) a
solution with no step at or above ``threshold`` gets -1; one with such a step is called wrong and its
first suspect is, by ``locate``, the earliest step at or above ``threshold`` (``earliest``, the rule of
combiners fitted before ``locate`` was written) or, as for a graded-wrong solution, the step most likely
to be the first error (``likeliest``). The fit chooses ``locate`` with the threshold, on out-of-fold
predictions. The solution's score is its largest step probability.

A combiner may hold one combiner per language (``"languages": {"zh": {...}}``, each a combiner's fields
without ``format`` and ``version``), fitted on that language's sets alone with its own threshold:
:meth:`Combiner.for_language` picks it for a solution in that language, the top-level weights serve the
others. Fitted on pooled sets, English chains (the larger part) set the weights Chinese chains get.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

from kg.errors import InputError
from reasoning_metrics.combine.features import feature_names

Locate = Literal["earliest", "likeliest"]
LOCATE: tuple[Locate, ...] = ("earliest", "likeliest")
"""What ``locate`` may say: the step a solution called wrong by the threshold gets."""
FORMAT = "k12eval-combiner"
VERSION = 1
DEFAULT = "default"
"""The name that picks the combiner shipped with the package (:data:`DEFAULT_FILE`)."""
DEFAULT_FILE = "default_combiner.json"


@dataclass(frozen=True)
class Combiner:
    """Logistic weights over named step features, and the step threshold chosen on the training data."""

    features: list[str]
    coefficients: list[float]
    intercept: float
    threshold: float
    C: float = 1.0
    """Inverse L2 strength chosen by grouped cross-validation."""
    package_version: str = ""
    training: list[dict[str, Any]] = field(default_factory=list)
    """Each training set: name, format, paths, half, solutions, with_error, steps."""
    cv: dict[str, Any] = field(default_factory=dict)
    """Out-of-fold figures on the training data (step log-loss, ProcessBench F1 at the threshold)."""
    locate: Locate = "earliest"
    """Which step a solution called wrong by the threshold gets (:data:`LOCATE`; see the module doc)."""
    languages: dict[str, Combiner] = field(default_factory=dict)
    """Language (``zh``, ``en``) -> the combiner fitted on that language's sets alone, used for its solutions."""
    format: str = FORMAT
    version: int = VERSION

    @property
    def uses_roscoe(self) -> bool:
        """Whether it (or one of its per-language combiners) reads ROSCOE step scores (then an encoder must run)."""
        return any(f.startswith("roscoe.") for c in self._all() for f in c.features)

    @property
    def uses_grade(self) -> bool:
        """Whether it (or one of its per-language combiners) reads the grade of the final answer."""
        return any(f.startswith("grade.") for c in self._all() for f in c.features)

    def _all(self) -> list[Combiner]:
        return [self, *self.languages.values()]

    def for_language(self, language: str | None) -> Combiner:
        """The combiner fitted for ``language`` when there is one, else this one."""
        return self.languages.get(language or "", self)

    def step_probabilities(self, rows: list[dict[str, float]]) -> list[float]:
        """P(this step is the first wrong one) for each step's feature mapping."""
        out = []
        for row in rows:
            z = self.intercept + sum(w * row.get(f, 0.0) for f, w in zip(self.features, self.coefficients, strict=True))
            out.append(1 / (1 + math.exp(-z)) if z > -700 else 0.0)
        return out

    def first_suspect(self, probabilities: list[float], graded_wrong: bool = False) -> int:
        """The first suspect by :func:`first_suspect` at this combiner's threshold."""
        return first_suspect(probabilities, self.threshold, graded_wrong, self.locate)

    def to_json(self) -> str:
        """The ``combiner.json`` text (``languages`` only when there are per-language combiners)."""
        raw = asdict(self)
        if not self.languages:
            del raw["languages"]
        for sub in raw.get("languages", {}).values():
            for key in ("format", "version", "languages"):
                sub.pop(key, None)
        return json.dumps(raw, indent=1, ensure_ascii=False) + "\n"


def first_suspect(
    probabilities: Sequence[float], threshold: float, graded_wrong: bool = False, locate: str = "earliest"
) -> int:
    """The step most likely to be the first error when the final answer was graded wrong; otherwise -1 when no
    step reaches ``threshold``, else the earliest step that does (``locate="earliest"``) or the step most
    likely to be the first error (``"likeliest"``; see the module doc)."""
    if graded_wrong and probabilities:
        return _likeliest(probabilities)
    earliest = next((i for i, p in enumerate(probabilities) if p >= threshold), -1)
    return _likeliest(probabilities) if earliest >= 0 and locate == "likeliest" else earliest


def _likeliest(probabilities: Sequence[float]) -> int:
    """``argmax_k p_k · Π_{j<k} (1 - p_j)``: the likeliest first error under the hazard model."""
    best, best_at, alive = -1.0, 0, 1.0
    for i, p in enumerate(probabilities):
        if p * alive > best:
            best, best_at = p * alive, i
        alive *= 1 - p
    return best_at


NONE = "none"
"""The name that turns the combiner off."""


def choose_combiner(spec: str | None, detectors: bool = True) -> str | None:
    """What ``score`` runs: ``spec`` as given (``none`` -> no combiner); when not given, the default
    one, unless the detectors are off (a combiner reads their findings)."""
    if spec is None:
        return DEFAULT if detectors else None
    return None if spec == NONE else spec


def load_combiner(spec: str | Path) -> Combiner:
    """``default`` (the shipped combiner) or a ``combiner.json`` path; a bad file is one-line :class:`InputError`."""
    if str(spec) == DEFAULT:
        text = files("reasoning_metrics.combine").joinpath(DEFAULT_FILE).read_text(encoding="utf-8")
        return parse_combiner(text, f"the default combiner (reasoning_metrics/combine/{DEFAULT_FILE})")
    path = Path(spec)
    if not path.is_file():
        raise InputError(f"{path}: no such combiner file (pass a combiner.json from `k12eval calibrate`, or 'default')")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read it ({exc})") from None
    return parse_combiner(text, str(path))


def parse_combiner(text: str, where: str) -> Combiner:
    """Validate ``combiner.json`` text; every error names ``where`` and the field."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise InputError(f"{where}: not a combiner file (expected field 'format' = {FORMAT!r})")
    if raw.get("version") != VERSION:
        raise InputError(f"{where}, field 'version': expected {VERSION}, got {raw.get('version')!r}")
    languages = raw.get("languages", {})
    if not isinstance(languages, dict) or not all(isinstance(v, dict) for v in languages.values()):
        raise InputError(f"{where}, field 'languages': expected language -> combiner fields")
    return replace(
        _weights(raw, where),
        languages={lang: _weights(sub, f"{where}, languages.{lang}") for lang, sub in languages.items()},
    )


def _weights(raw: dict[str, Any], where: str) -> Combiner:
    """One combiner's weights, threshold and provenance, each field checked."""
    features, coefficients = raw.get("features"), raw.get("coefficients")
    if not isinstance(features, list) or not features or not all(isinstance(f, str) for f in features):
        raise InputError(f"{where}, field 'features': expected a non-empty list of feature names")
    if len(set(features)) != len(features):
        raise InputError(f"{where}, field 'features': a feature is named twice")
    if (
        not isinstance(coefficients, list)
        or len(coefficients) != len(features)
        or not all(_finite(c) for c in coefficients)
    ):
        raise InputError(f"{where}, field 'coefficients': expected {len(features)} finite numbers, one per feature")
    for name in ("intercept", "threshold"):
        if not _finite(raw.get(name)):
            raise InputError(f"{where}, field '{name}': expected a finite number, got {raw.get(name)!r}")
    written = raw.get("locate", "earliest")  # files fitted before the field was written: the old rule
    if written not in LOCATE:
        raise InputError(f"{where}, field 'locate': expected one of {', '.join(LOCATE)}, got {written!r}")
    locate: Locate = "likeliest" if written == "likeliest" else "earliest"
    if not 0 <= raw["threshold"] <= 1:
        raise InputError(f"{where}, field 'threshold': expected a probability in [0, 1], got {raw['threshold']!r}")
    known = set(feature_names(roscoe=True, grade=True))
    unknown = [f for f in features if f not in known]
    if unknown:
        raise InputError(
            f"{where}, field 'features': {', '.join(unknown[:3])} not computed by this version "
            "(a detector it was fitted with is gone; fit it again with `k12eval calibrate`)"
        )
    return Combiner(
        features=list(features),
        coefficients=[float(c) for c in coefficients],
        intercept=float(raw["intercept"]),
        threshold=float(raw["threshold"]),
        locate=locate,
        C=float(raw["C"]) if _finite(raw.get("C")) else 1.0,
        package_version=str(raw.get("package_version", "")),
        training=list(raw.get("training") or []),
        cv=dict(raw.get("cv") or {}),
    )


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
