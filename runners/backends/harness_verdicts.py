"""lm-eval's own verdict on each answer it recorded, kept beside k12eval's, and the grader that uses it.

An lm-eval ``--log_samples`` line holds, besides the answer, what the harness made of it: the answer
its filter extracted (``filtered_resps``, under ``filter``: ``strict-match``, ``flexible-extract``,
``get-answer``... or ``none``), and the value of each metric of the task on it (``exact_match``,
``acc``, ``acc_norm``...: a top-level key named in ``metrics``, or, in versions before ``metrics``
was written, any number beside the standard fields). A task with several filters writes one line
per filter for the same ``doc_id``; each becomes one verdict, in the file's order.

A replayed record keeps them in ``harness.verdicts`` (``[{"filter", "filtered", "metrics"}]``) and
the harness's gold as ``harness.target``, so that k12eval's verdict can be set against the harness's
(the report's agreement table), and ``--grader harness`` can count the harness's verdict instead of
k12eval's: it then reproduces the harness's own figure (its ``results_*.json``) for the questions the
replay matched.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import SettingError
from runners.backends._shared import clean_text
from runners.backends.harness_files import LM_EVAL_DATE, base_name

if TYPE_CHECKING:
    from runners.records import RunRecord

SAMPLE_FIELDS = frozenset(
    {
        "doc_id",
        "doc",
        "target",
        "arguments",
        "resps",
        "filtered_resps",
        "filter",
        "metrics",
        "doc_hash",
        "prompt_hash",
        "target_hash",
        "task_name",
    }
)
"""The fields of an lm-eval sample line that are not a metric's value."""
GRADERS = ("k12eval", "harness")
MAX_RESULTS_BYTES = 64 << 20
"""Largest ``results_*.json`` read for its filters' names (its ``configs``)."""
MAX_FILTERED = 2_000
"""Most characters of the harness's filtered answer a record keeps (a ``none`` filter keeps the whole output)."""


@dataclass(frozen=True)
class Grader:
    """Who decides whether an answer is right: ``k12eval`` (its extraction and grading) or ``harness``.

    With ``harness``, the verdict is the value of ``metric`` (``None``: the first metric the harness
    recorded) under ``filter`` (``None``: the first filter of the record's lines).
    """

    name: str = "k12eval"
    metric: str | None = None
    filter: str | None = None

    @classmethod
    def parse(cls, text: str) -> Grader:
        """``k12eval``, ``harness``, ``harness:acc_norm`` or ``harness:exact_match,flexible-extract`` (lm-eval's
        ``metric,filter``); anything else is an :class:`InputError` naming ``--grader``."""
        name, _, detail = text.strip().partition(":")
        if name == "k12eval" and not detail:
            return cls()
        if name == "harness":
            metric, _, filter_name = detail.partition(",")
            return cls("harness", metric.strip() or None, filter_name.strip() or None)
        raise SettingError(
            "grader",
            text,
            "choose k12eval, harness, harness:METRIC or harness:METRIC,FILTER (e.g. harness:exact_match,flexible-extract)",
        )

    def __str__(self) -> str:
        if self.name != "harness" or self.metric is None:
            return self.name
        return f"harness:{self.metric}" + (f",{self.filter}" if self.filter else "")


def results_filters(samples_file: Path, task: str) -> list[str]:
    """The filters of ``task`` in the ``results_<date>.json`` lm-eval wrote beside ``samples_<task>_<date>.jsonl``.

    Lines written before lm-eval named their ``filter`` are one per filter in this order; ``[]`` when the
    results file is not there or says nothing of it (lm-eval then used its one filter, ``none``).
    """
    date = LM_EVAL_DATE.search(base_name(samples_file))
    results = samples_file.parent / f"results{date.group()}.json" if date else None
    if results is None or not results.is_file() or results.stat().st_size > MAX_RESULTS_BYTES:
        return []
    try:
        config = json.loads(results.read_text(encoding="utf-8"))["configs"][task]
        return [clean_text(str(entry["name"])[:100]) for entry in config["filter_list"]]
    except (OSError, UnicodeDecodeError, ValueError, RecursionError, KeyError, TypeError):
        return []


def lm_eval_verdict(item: dict[str, Any], default_filter: str = "none") -> dict[str, Any] | None:
    """The harness's verdict in one sample line: ``{"filter", "filtered", "metrics"}``; ``None`` without a metric.

    ``default_filter`` names the filter of a line that does not (:func:`results_filters`)."""
    named = item.get("metrics")
    if isinstance(named, list) and named and all(isinstance(name, str) for name in named):
        candidates = list(named)
    else:  # lm-eval before 0.4.3 wrote no "metrics": a metric is any number beside the standard fields
        candidates = [key for key in item if key not in SAMPLE_FIELDS]
    metrics: dict[str, float] = {}
    for name in candidates:
        value = item.get(name)
        if isinstance(value, int | float) and _finite(value):  # a bool too: ifeval's verdicts are true / false
            metrics[clean_text(name[:100])] = float(value)
    if not metrics:
        return None
    filter_name = item.get("filter")
    return {
        "filter": clean_text(filter_name[:100]) if isinstance(filter_name, str) and filter_name else default_filter,
        "filtered": _filtered(item.get("filtered_resps")),
        "metrics": metrics,
    }


def lm_eval_target(item: dict[str, Any]) -> str | None:
    """The harness's gold answer (``target``) as text, for the reader of a disagreement."""
    return target_text(item.get("target"))


def target_text(target: Any) -> str | None:
    """A harness's gold answer (lm-eval's ``target``, OpenCompass's ``gold``) as text; ``None`` if it has none."""
    if isinstance(target, bool) or target is None:
        return None
    if isinstance(target, str | int | float):
        return clean_text(str(target)[:MAX_FILTERED])
    if isinstance(target, list) and target and all(isinstance(t, str | int) for t in target):
        return clean_text(" | ".join(map(str, target))[:MAX_FILTERED])
    return None


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def target_letter(target: str | None) -> str | None:
    """The option letter a harness's gold names: a letter (``B``), or lm-eval's index into the choices
    (``1``: B); ``None`` for any other gold (a text, a number of a fill-in task), which is not compared."""
    text = (target or "").strip()
    if len(text) == 1 and text.upper() in _LETTERS:
        return text.upper()
    # ASCII digits only: "²" and "2²" are digits to str.isdigit but not to int(), and "٣" is no index lm-eval writes.
    if text.isascii() and text.isdigit() and int(text) < len(_LETTERS):
        return _LETTERS[int(text)]
    return None


def gold_disagreements(records: Iterable[RunRecord]) -> list[tuple[str, str, str]]:
    """``(question id, the harness's letter, the bank's letter)`` of each replayed single-choice answer whose gold
    in the harness's file names another option than the bank's: another answer key (a corrected copy, another
    release), which makes the two graders' figures differ for a reason that is not grading."""
    found = []
    for record in records:
        if record.type != "single_choice":
            continue
        target = target_letter((record.harness or {}).get("target"))
        if target and record.gold and [target] != list(record.gold):
            found.append((record.question_id, target, str(record.gold[0])))
    return found


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an integer of hundreds of digits
        return False


def _filtered(value: Any) -> str | None:
    """The first filtered answer as text: ``["1"]`` -> ``1``; choice scores (loglikelihood tasks) have none."""
    first = value[0] if isinstance(value, list) and value else value
    if isinstance(first, list) and len(first) == 1 and isinstance(first[0], str):
        first = first[0]
    return clean_text(first[:MAX_FILTERED]) if isinstance(first, str) else None


def chosen_verdict(harness: dict[str, Any] | None, grader: Grader) -> tuple[float | None, str]:
    """``(value, why)`` of the harness's verdict ``grader`` reads from a record's ``harness``.

    ``value`` is ``None`` when the record has no such verdict; ``why`` then says what it has.
    """
    verdicts = harness.get("verdicts") if isinstance(harness, dict) else None
    if not isinstance(verdicts, list) or not verdicts:
        return None, "the harness recorded no verdict for this answer"
    verdict = verdicts[0]
    if grader.filter is not None:
        verdict = next((v for v in verdicts if isinstance(v, dict) and v.get("filter") == grader.filter), None)
        if verdict is None:
            filters = ", ".join(str(v.get("filter")) for v in verdicts if isinstance(v, dict))
            return None, f"no verdict under filter {grader.filter!r} (the harness has: {filters})"
    metrics = verdict.get("metrics") if isinstance(verdict, dict) else None
    if not isinstance(metrics, dict) or not metrics:
        return None, "the harness recorded no metric for this answer"
    name = grader.metric or next(iter(metrics))
    value = metrics.get(name)
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None, f"no metric {name!r} (the harness has: {', '.join(metrics)})"
    return float(value), f"{name},{verdict.get('filter', 'none')}"


def right_or_wrong(value: float) -> bool | None:
    """A metric's value as a verdict: 1 right, 0 wrong; ``None`` for a value in between (an F1, a BLEU)."""
    if value == 1.0:
        return True
    if value == 0.0:
        return False
    return None
