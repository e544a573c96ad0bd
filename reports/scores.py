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
                ...any other per-step numbers...}],
     "assessment": {"first_suspect": 2, "score": 0.9,
                    "steps": [{"index": 0, "suspicion": 0.9, "contradiction": 0.1,
                               "flags": [{"kind": "arithmetic", "severity": 0.9, "message": "...",
                                          "evidence": "..."}]}],
                    "flags": [...solution-level flags...], "unavailable": {"contradiction": "..."}}}

``k12eval score`` (``reasoning_metrics.runs.ScoreRecord``) writes the step matches as
``source_index``/``source_similarity``, ``reference_index``/``reference_similarity`` and
``contradiction_index``/``contradiction`` (indices into ``source_steps`` and
``reference_steps``); they are read as ``best_source``, ``best_reference`` and
``max_contradiction``. Its detectors' output is ``assessment``
(``reasoning_metrics.verify.flags.SolutionAssessment``); a step flag given as an object
(``{"kind", "message"}``) in ``steps[].flags`` is read as a finding too. Lines written
before the detectors existed have no ``assessment`` and load as before.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
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
class Finding:
    """One detector's reason to suspect a step (or a whole solution)."""

    kind: str
    """e.g. ``arithmetic``, ``contradiction``, ``doubt`` (``reasoning_metrics.verify.flags.FlagKind``)."""
    message: str
    """One line for a reader, quoting model text: untrusted, escape it."""
    severity: float | None = None
    evidence: str | None = None


@dataclass(frozen=True)
class StepScore:
    """One step of the model's reasoning with what the scorer and detectors found."""

    index: int
    text: str
    flags: tuple[str, ...] = ()
    """Names of the scorer's per-step warnings (``unsupported``, ``contradicts_source``...)."""
    best_source: Match | None = None
    best_reference: Match | None = None
    max_contradiction: Match | None = None
    values: dict[str, float] = field(default_factory=dict)
    """Any other per-step numbers the scorer wrote (e.g. a detector's confidence)."""
    findings: tuple[Finding, ...] = ()
    """The detectors' flags on this step, with their messages."""
    suspicion: float | None = None
    """The detectors' combined suspicion of the step (0-1), if they ran."""


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
    suspect_rule: str | None = None
    """How the detectors chose ``first_suspect``: ``flag`` (a flagged step) or ``fallback`` (no step is
    flagged but the solution is suspect: the first step with a finding, else the first calculation)."""
    solution_findings: tuple[Finding, ...] = ()
    """Detector flags of the whole solution (unused given numbers, no final answer)."""
    detectors_unavailable: dict[str, str] = field(default_factory=dict)
    """Detector -> why it did not run (no NLI model...); empty when the detectors did not run at all."""


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
    sources = _texts(_first(obj, "source_sentences", "source", "source_steps"), "source_sentences")
    references = _texts(_first(obj, "reference_steps", "reference"), "reference_steps")
    steps = tuple(_step(s, i, sources, references) for i, s in enumerate(steps_raw))
    assessment = obj.get("assessment")
    assessment = {} if assessment is None else assessment
    if not isinstance(assessment, dict):
        raise TypeError("'assessment': expected an object")
    steps = _with_assessment(steps, assessment)
    suspect = _first(obj, "first_suspect", "first_suspect_step")
    suspect = suspect if suspect is not None else assessment.get("first_suspect")
    return QuestionScores(
        question_id=qid,
        scores=scores,
        unavailable={str(k): str(v) for k, v in (obj.get("unavailable") or {}).items()},
        steps=steps,
        hypothesis_steps=_texts(_first(obj, "hypothesis_steps", "hypothesis", "chain"), "hypothesis_steps"),
        reference_steps=references,
        source_sentences=sources,
        first_suspect=int(suspect) if isinstance(suspect, int | float) and suspect >= 0 else None,
        suspect_rule=_rule(assessment.get("suspect_rule")),
        solution_findings=_findings(assessment.get("flags"), "assessment.flags"),
        detectors_unavailable={str(k): str(v) for k, v in (assessment.get("unavailable") or {}).items()},
    )


def _rule(value: Any) -> str | None:
    if value is None or value in ("flag", "fallback", "none"):
        return value
    raise ValueError("'assessment.suspect_rule': expected flag, fallback or none")


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


_SCORER_FIELDS = (
    "source_index",
    "source_similarity",
    "reference_index",
    "reference_similarity",
    "contradiction_index",
    "contradiction",
    "repeat_index",
)
"""Per-step fields of the scorer read as matches (``repeat_index`` is an index, not a value to show)."""
_KNOWN = {"index", "text", "flags", "best_source", "best_reference", "max_contradiction", *_SCORER_FIELDS}


def _step(raw: Any, position: int, sources: tuple[str, ...] = (), references: tuple[str, ...] = ()) -> StepScore:
    if isinstance(raw, str):
        return StepScore(index=position, text=raw)
    if not isinstance(raw, dict):
        raise TypeError(f"'steps[{position}]': expected an object")
    flags = raw.get("flags") or []
    if not isinstance(flags, list):
        raise TypeError(f"'steps[{position}].flags': expected a list of names")
    values = {k: float(v) for k, v in raw.items() if k not in _KNOWN and _finite(v)}
    index = raw.get("index")
    return StepScore(
        index=index if isinstance(index, int) else position,
        text=str(raw.get("text") or ""),
        flags=tuple(str(f) for f in flags if not isinstance(f, dict)),
        best_source=_match(raw.get("best_source"), ("similarity", "score"))
        or _indexed(raw, "source_index", "source_similarity", sources),
        best_reference=_match(raw.get("best_reference"), ("similarity", "score"))
        or _indexed(raw, "reference_index", "reference_similarity", references),
        max_contradiction=_match(
            raw.get("max_contradiction"), ("prob", "probability", "score"), ("source_index", "index")
        )
        or _indexed(raw, "contradiction_index", "contradiction", sources),
        values=values,
        findings=_findings([f for f in flags if isinstance(f, dict)], f"steps[{position}].flags"),
    )


def _indexed(raw: dict[str, Any], index_key: str, score_key: str, texts: tuple[str, ...]) -> Match | None:
    """A match the scorer wrote as an index into the source sentences or reference steps, and a number."""
    score: Any = raw.get(score_key)
    at = raw.get(index_key)
    if not _finite(score):
        return None
    at = at if isinstance(at, int) and not isinstance(at, bool) else None
    text = texts[at] if at is not None and 0 <= at < len(texts) else ""
    return Match(index=at, text=text, score=float(score))


def _findings(raw: Any, name: str) -> tuple[Finding, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(f, dict) for f in raw):
        raise TypeError(f"'{name}': expected a list of flag objects")
    return tuple(
        Finding(
            kind=str(f.get("kind") or "flag"),
            message=str(f.get("message") or ""),
            severity=float(f["severity"]) if _finite(f.get("severity")) else None,
            evidence=None if f.get("evidence") is None else str(f["evidence"]),
        )
        for f in raw
    )


def _with_assessment(steps: tuple[StepScore, ...], assessment: dict[str, Any]) -> tuple[StepScore, ...]:
    """The steps with the detectors' flags and suspicion of the same index added."""
    found = assessment.get("steps", [])
    if not isinstance(found, list):
        raise TypeError("'assessment.steps': expected a list")
    by_index: dict[int, dict[str, Any]] = {}
    for k, entry in enumerate(found):
        if not isinstance(entry, dict):
            raise TypeError(f"'assessment.steps[{k}]': expected an object")
        index = entry.get("index")
        by_index[index if isinstance(index, int) else k] = entry
    out = []
    for step in steps:
        entry = by_index.get(step.index)
        if entry is None:
            out.append(step)
            continue
        findings = _findings(entry.get("flags"), f"assessment.steps[{step.index}].flags")
        suspicion = float(entry["suspicion"]) if _finite(entry.get("suspicion")) else None
        out.append(replace(step, findings=step.findings + findings, suspicion=suspicion))
    return tuple(out)
