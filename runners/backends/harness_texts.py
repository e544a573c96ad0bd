"""The texts another harness recorded beside an answer: the question, the prompt it rendered, its settings.

They are what a recorded answer is matched to a bank question by (:mod:`runners.backends.harness_match`)
and what a replayed record keeps as provenance.

- **The question**: lm-eval's ``doc`` is the task's own document, and tasks name its question
  differently: ``question`` (C-Eval, GSM8K), ``Question`` (CMMLU), ``problem`` (MATH), ``sentence``
  (Winogrande), ``query``, ``input``, ``ctx`` (HellaSwag), ``premise`` (COPA)... The first of
  :data:`QUESTION_FIELDS` whose text is at least :data:`MIN_TEXT` characters long is taken: a shorter
  one is a label, not a question (kobest_copa's ``question`` is ``원인`` or ``결과``, "cause" or
  "effect", found in every prompt of the task).
- **The prompt**: lm-eval's ``arguments.gen_args_0.arg_0`` (older versions: ``arguments[0][0]``), a
  text, or chat messages as JSON (a text, or a one-item list holding it, as lm-eval 0.4.12 writes
  it); OpenCompass's ``origin_prompt``, a text or a list of ``{"role", "prompt"}`` turns.
- **The generation settings**: lm-eval's ``arg_1`` of a ``generate_until`` request (``until``,
  ``max_gen_toks``, ``temperature``, ``do_sample``...).
"""

from __future__ import annotations

import json
import math
import unicodedata
from typing import Any

from runners.backends._shared import clean_text

QUESTION_FIELDS = (
    "question",
    "Question",
    "problem",
    "sentence",
    "query",
    "input",
    "ctx",
    "premise",
    "passage",
    "text",
    "prompt",
    "instruction",
)
"""The fields of a harness's document that hold the question, in the order they are tried."""

MIN_TEXT = 8
"""Fewest characters (whitespace aside, NFKC) a text must have for a match by it: ``原因``, ``결과``,
``cause`` or ``下列说法正确的是`` alone would be found in many prompts. Chosen from what a label is, not
fitted to any file."""

MAX_KEPT = 20_000
"""Most characters of a harness's prompt a record keeps as provenance (few-shot prompts run long)."""


def normalized(text: str) -> str:
    """``text`` in NFKC with all whitespace removed, for comparing question texts."""
    return "".join(unicodedata.normalize("NFKC", text).split())


def question_of(doc: Any) -> tuple[str | None, str]:
    """The question text of a harness's document and the field it came from (``doc.problem``).

    The first field of :data:`QUESTION_FIELDS` at least :data:`MIN_TEXT` long; else the first present
    (it still checks a match by position, but is too short to match by); ``(None, why)`` without any.
    """
    if not isinstance(doc, dict):
        return None, "doc is not an object"
    short: tuple[str, str] | None = None
    for key in QUESTION_FIELDS:
        value = doc.get(key)
        if isinstance(value, str) and value.strip():
            if len(normalized(value)) >= MIN_TEXT:
                return value, f"doc.{key}"
            short = short or (value, f"doc.{key}")
    return short or (None, f"doc has none of {', '.join(QUESTION_FIELDS)}")


def lm_eval_request(item: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    """The prompt lm-eval rendered (as text) and the generation settings of a ``--log_samples`` record."""
    arguments = item.get("arguments")
    first: Any = None
    if isinstance(arguments, dict):
        first = arguments.get("gen_args_0")
        first = [first.get("arg_0"), first.get("arg_1")] if isinstance(first, dict) else None
    elif isinstance(arguments, list) and arguments and isinstance(arguments[0], list):
        first = arguments[0]
    if not first:
        return None, None
    prompt = _text(first[0])
    settings = first[1] if len(first) > 1 and isinstance(first[1], dict) else None
    return prompt, _kept(settings) if settings is not None else None


def opencompass_prompt(item: dict[str, Any]) -> str | None:
    """OpenCompass's ``origin_prompt`` as text; for a PPL record, which has none, the first option's
    ``prompt`` (the question as rendered, that option's answer appended) or its ``testing input``."""
    found = _text(item.get("origin_prompt"))
    if found is not None:
        return found
    labels = sorted(key for key in item if isinstance(key, str) and key.startswith("label: "))
    entry = item[labels[0]] if labels else None
    if isinstance(entry, dict):
        return _text(entry.get("prompt")) or _text(entry.get("testing input"))
    return None


def _text(value: Any) -> str | None:
    """A prompt as text: a text (JSON chat messages read as their contents), or turns joined by lines."""
    if isinstance(value, str):
        if value.startswith("[{"):
            try:
                return _text(json.loads(value)) or clean_text(value)
            except (ValueError, RecursionError):
                pass
        return clean_text(value)
    if isinstance(value, list):
        parts = []
        for turn in value:
            if isinstance(turn, dict):
                turn = turn.get("content", turn.get("prompt"))
            part = _text(turn)
            if part:
                parts.append(part)
        return "\n".join(parts) if parts else None
    return None


def kept_prompt(text: str) -> str:
    """A harness's prompt as a record keeps it: at most :data:`MAX_KEPT` characters."""
    return text[:MAX_KEPT] + ("..." if len(text) > MAX_KEPT else "")


def _kept(value: Any) -> Any:
    """A JSON value as a record may keep it: its texts made writable (lone surrogates replaced)."""
    if isinstance(value, str):
        return clean_text(value[:1000])
    if isinstance(value, list):
        return [_kept(v) for v in value[:50]]
    if isinstance(value, dict):
        return {clean_text(str(k)[:100]): _kept(v) for k, v in list(value.items())[:50]}
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # NaN and infinities cannot be written as JSON
    return value
