"""A fitted combiner: logistic weights over the step features (:mod:`.features`), a step threshold, and
where they came from. Predicting needs numpy only; fitting (:mod:`.fit`) needs scikit-learn.

``combiner.json``::

    {"format": "k12eval-combiner", "version": 1, "package_version": "0.1.0",
     "features": [...], "coefficients": [...], "intercept": -3.1, "threshold": 0.31,
     "C": 0.3, "training": [{"name": "gsm8k", "format": "processbench", "half": "dev", ...}], "cv": {...}}

The coefficients apply to the raw feature values (the standardisation used while fitting is folded in).
A step's probability of being the first wrong one is ``sigmoid(features · coefficients + intercept)``;
the first suspect is the earliest step at or above ``threshold`` (else -1); the solution's score is
its largest step probability.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from kg.errors import InputError
from reasoning_metrics.combine.features import feature_names

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
    format: str = FORMAT
    version: int = VERSION

    @property
    def uses_roscoe(self) -> bool:
        """Whether it reads ROSCOE step scores (then an encoder must run)."""
        return any(f.startswith("roscoe.") for f in self.features)

    @property
    def uses_grade(self) -> bool:
        """Whether it reads the grade of the final answer."""
        return any(f.startswith("grade.") for f in self.features)

    def step_probabilities(self, rows: list[dict[str, float]]) -> list[float]:
        """P(this step is the first wrong one) for each step's feature mapping."""
        out = []
        for row in rows:
            z = self.intercept + sum(w * row.get(f, 0.0) for f, w in zip(self.features, self.coefficients, strict=True))
            out.append(1 / (1 + math.exp(-z)) if z > -700 else 0.0)
        return out

    def first_suspect(self, probabilities: list[float]) -> int:
        """The earliest step at or above the threshold, else -1."""
        return next((i for i, p in enumerate(probabilities) if p >= self.threshold), -1)

    def to_json(self) -> str:
        """The ``combiner.json`` text."""
        return json.dumps(asdict(self), indent=1, ensure_ascii=False) + "\n"


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
        C=float(raw["C"]) if _finite(raw.get("C")) else 1.0,
        package_version=str(raw.get("package_version", "")),
        training=list(raw.get("training") or []),
        cv=dict(raw.get("cv") or {}),
    )


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
