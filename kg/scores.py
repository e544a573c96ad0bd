"""Read the step scores a scoring pass leaves in ``RUN_DIR/scores.jsonl``.

Everything that reads scores goes through :func:`load_scores`, so a change in
the scorer's field names is adapted here and nowhere else. The file is optional:
a run that was never scored has no step scores, and the report says so.

Accepted line (aliases in brackets)::

    {"question_id": "...",
     "scores": {"faithfulness": 0.8, "redundancy": null},          [metrics]
     "unavailable": {"redundancy": "no reference steps"},
     "hypothesis_steps": ["..."],                                   [hypothesis, chain]
     "reference_steps": ["..."],                                    [reference]
     "source_sentences": ["..."],                                   [source, source_steps]
     "first_suspect": 2,                                            [first_suspect_step]
     "steps": [{"index": 0, "text": "...", "flags": ["unsupported"],
                "best_source": {"index": 1, "text": "...", "similarity": 0.62},
                "best_reference": {"index": 0, "text": "...", "similarity": 0.9},
                "max_contradiction": {"prob": 0.1, "source_index": 0, "text": "..."},
                ...any other per-step numbers...}]}
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import InputError

SCORES_FILE = "scores.jsonl"


@dataclass(frozen=True)
class Match:
    """The sentence a step was matched to (a source sentence or a reference step)."""

    index: int | None
    text: str
    score: float | None
    """Similarity, or contradiction probability for :attr:`StepScore.max_contradiction`."""


@dataclass(frozen=True)
class StepScore:
    """One step of the model's reasoning with what the scorer and detectors found."""

    index: int
    text: str
    flags: tuple[str, ...] = ()
    best_source: Match | None = None
    best_reference: Match | None = None
    max_contradiction: Match | None = None
    values: dict[str, float] = field(default_factory=dict)
    """Any other per-step numbers the scorer wrote (e.g. a detector's confidence)."""


@dataclass(frozen=True)
class QuestionScores:
    """The scores of one solution."""

    question_id: str
    scores: dict[str, float | None]
    unavailable: dict[str, str] = field(default_factory=dict)
    steps: tuple[StepScore, ...] = ()
    hypothesis_steps: tuple[str, ...] = ()
    reference_steps: tuple[str, ...] = ()
    source_sentences: tuple[str, ...] = ()
    first_suspect: int | None = None


def load_scores(run_dir: Path) -> dict[str, QuestionScores]:
    """Scores by question id; empty when the run has no ``scores.jsonl``.

    A later line for the same question replaces an earlier one (a re-score appends).
    A malformed line is an :class:`InputError` naming the file, line and field.
    """
    path = Path(run_dir) / SCORES_FILE
    if not path.is_file():
        return {}
    result: dict[str, QuestionScores] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            if not line.endswith("\n"):
                break  # a torn last line from a killed scorer: not a record yet
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}, line {number}: not valid JSON ({exc.msg})") from None
            try:
                scores = parse_scores(obj)
            except (KeyError, TypeError, ValueError) as exc:
                raise InputError(f"{path}, line {number}, field {exc.args[0]}") from None
            result[scores.question_id] = scores
    return result


def parse_scores(obj: Any) -> QuestionScores:
    """One scores line as :class:`QuestionScores`; raises with the offending field's name first."""
    if not isinstance(obj, dict):
        raise TypeError("'(line)': expected a JSON object")
    qid = obj.get("question_id")
    if not isinstance(qid, str) or not qid:
        raise KeyError("'question_id': expected a non-empty string")
    raw = _first(obj, "scores", "metrics") or {}
    if not isinstance(raw, dict):
        raise TypeError("'scores': expected an object of metric -> number or null")
    scores = {str(k): _number(v, f"scores.{k}") for k, v in raw.items()}
    steps_raw = obj.get("steps") or []
    if not isinstance(steps_raw, list):
        raise TypeError("'steps': expected a list")
    steps = tuple(_step(s, i) for i, s in enumerate(steps_raw))
    suspect = _first(obj, "first_suspect", "first_suspect_step")
    return QuestionScores(
        question_id=qid,
        scores=scores,
        unavailable={str(k): str(v) for k, v in (obj.get("unavailable") or {}).items()},
        steps=steps,
        hypothesis_steps=_texts(_first(obj, "hypothesis_steps", "hypothesis", "chain"), "hypothesis_steps"),
        reference_steps=_texts(_first(obj, "reference_steps", "reference"), "reference_steps"),
        source_sentences=_texts(_first(obj, "source_sentences", "source", "source_steps"), "source_sentences"),
        first_suspect=int(suspect) if isinstance(suspect, int | float) and suspect >= 0 else None,
    )


def _first(obj: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if obj.get(key) is not None:
            return obj[key]
    return None


def _number(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"'{name}': expected a number or null, got {value!r:.40}")
    return float(value) if math.isfinite(value) else None


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _texts(value: Any, name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise TypeError(f"'{name}': expected a list of strings")
    return tuple(str(v) if not isinstance(v, dict) else str(v.get("text", "")) for v in value)


def _match(value: Any, score_keys: tuple[str, ...], index_keys: tuple[str, ...] = ("index",)) -> Match | None:
    if not isinstance(value, dict):
        return None
    score = next((value[k] for k in score_keys if _finite(value.get(k))), None)
    index = next((value[k] for k in index_keys if isinstance(value.get(k), int)), None)
    return Match(index=index, text=str(value.get("text") or ""), score=None if score is None else float(score))


def _step(raw: Any, position: int) -> StepScore:
    if isinstance(raw, str):
        return StepScore(index=position, text=raw)
    if not isinstance(raw, dict):
        raise TypeError(f"'steps[{position}]': expected an object")
    flags = raw.get("flags") or []
    if not isinstance(flags, list):
        raise TypeError(f"'steps[{position}].flags': expected a list of names")
    known = {"index", "text", "flags", "best_source", "best_reference", "max_contradiction"}
    values = {k: float(v) for k, v in raw.items() if k not in known and _finite(v)}
    index = raw.get("index")
    return StepScore(
        index=index if isinstance(index, int) else position,
        text=str(raw.get("text") or ""),
        flags=tuple(str(f) for f in flags),
        best_source=_match(raw.get("best_source"), ("similarity", "score")),
        best_reference=_match(raw.get("best_reference"), ("similarity", "score")),
        max_contradiction=_match(
            raw.get("max_contradiction"), ("prob", "probability", "score"), ("source_index", "index")
        ),
        values=values,
    )
