"""``--gen-kwargs``: generation settings as lm-eval users write them, onto the run's :class:`SamplingParams`.

Two spellings, as lm-eval's ``--gen_kwargs``: ``key=value,key=value`` (values read as numbers, ``true``
/ ``false`` or text: ``temperature=0.7,top_p=0.9,until=Question:``), or a JSON object for lists and
nested values (``{"until": ["\\n\\n", "问题："], "extra_body": {"chat_template_kwargs": {"enable_thinking":
false}}}``). The keys, with lm-eval's and the OpenAI API's names for the same setting:

==========================================  =============================================================
``temperature``, ``top_p``, ``top_k``       sampling (``top_k`` 0 or -1: no limit)
``max_gen_toks``, ``max_tokens``,           tokens generated per answer
``max_new_tokens``
``until``, ``stop``                         stop strings (a text or a list), added to the templates' own
``do_sample``                               ``false``: greedy (temperature 0)
``seed``                                    the sampling seed
``presence_penalty``,                       penalties (an OpenAI-compatible server, vLLM; the transformers
``frequency_penalty``,                      backend has ``repetition_penalty`` only, and refuses the
``repetition_penalty``                      others before the run rather than ignore them)
``extra_body``                              a JSON object merged into each request's body (the openai
                                            backend only): server-specific settings
==========================================  =============================================================

Any other key is refused, naming the known ones: a setting silently dropped would make the run look
asked for what it was not. ``--gen-kwargs`` is applied after ``--temperature``, ``--top-p`` and
``--max-tokens`` (as lm-eval's overrides a task's own), and the settings it gives are part of the
run's identity (``run.json``'s ``sampling``).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from kg.errors import SettingError
from runners.backends.base import Backend, SamplingParams

SETTING = "gen_kwargs"
ALIASES = {"max_gen_toks": "max_tokens", "max_new_tokens": "max_tokens", "until": "stop"}
"""lm-eval's and transformers' names for k12eval's."""
FLOATS = ("temperature", "top_p", "presence_penalty", "frequency_penalty", "repetition_penalty")
INTS = ("top_k", "max_tokens", "seed")
KNOWN = (*FLOATS, *INTS, "stop", "do_sample", "extra_body", *ALIASES)
OPTIONAL_FIELDS = ("top_k", "presence_penalty", "frequency_penalty", "repetition_penalty", "extra_body")
"""The settings only ``--gen-kwargs`` sets: absent from ``run.json``'s ``sampling`` unless given."""


def parse_gen_kwargs(text: str | None) -> dict[str, Any]:
    """``key=value,key=value`` or a JSON object as a dict; an :class:`InputError` naming ``--gen-kwargs``."""
    if text is None or not text.strip():
        return {}
    text = text.strip()
    if text.startswith("{"):
        try:
            found = json.loads(text)
        except ValueError as exc:
            raise SettingError(SETTING, text[:80], f"not a JSON object ({exc})") from None
        if not isinstance(found, dict):
            raise SettingError(SETTING, None, "expected a JSON object of settings")
        return found
    pairs: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise SettingError(
                SETTING,
                text[:80],
                "expected key=value,key=value (e.g. temperature=0.7,top_p=0.9) or a JSON object (for lists: "
                '\'{"until": ["\\n\\n"]}\')',
            )
        pairs[key.strip()] = _value(value.strip())
    return pairs


def _value(text: str) -> Any:
    """A ``key=value`` value as lm-eval reads one: ``true``/``false``, a number, else the text."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def with_gen_kwargs(params: SamplingParams, kwargs: dict[str, Any]) -> SamplingParams:
    """``params`` with the settings of ``kwargs`` (:func:`parse_gen_kwargs`), each checked and named when wrong."""
    changes: dict[str, Any] = {}
    for given, value in kwargs.items():
        key = ALIASES.get(given, given)
        if given not in KNOWN:
            raise SettingError(SETTING, None, f"unknown setting {given!r}; known: {', '.join(KNOWN)}")
        if key in FLOATS:
            changes[key] = _number(given, value, float)
        elif key in INTS:
            changes[key] = _number(given, value, int)
        elif key == "stop":
            changes[key] = (*params.stop, *_texts(given, value))
        elif key == "do_sample":
            if not isinstance(value, bool):
                raise SettingError(SETTING, f"{given}={value!r}", "expected true or false", quoted=False)
            if not value:
                changes["temperature"] = 0.0
        elif key == "extra_body":
            if not isinstance(value, dict):
                raise SettingError(
                    SETTING, "extra_body", 'expected a JSON object, as {"extra_body": {...}}', quoted=False
                )
            changes[key] = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if changes.get("top_k") in (0, -1):
        changes["top_k"] = None
    for key, low in (("temperature", 0.0), ("max_tokens", 1), ("repetition_penalty", 1e-9)):
        if key in changes and changes[key] < low:
            raise SettingError(SETTING, f"{key}={changes[key]}", f"must be at least {low:g}", quoted=False)
    if "top_p" in changes and not 0 < changes["top_p"] <= 1:
        raise SettingError(SETTING, f"top_p={changes['top_p']}", "must be in (0, 1]", quoted=False)
    return replace(params, **changes)


def _number(key: str, value: Any, kind: type) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or (kind is int and value != int(value)):
        raise SettingError(
            SETTING, f"{key}={value!r}", f"expected {'a whole number' if kind is int else 'a number'}", quoted=False
        )
    return kind(value)


def _texts(key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise SettingError(SETTING, key, "expected a text or a list of texts", quoted=False)


def sampling_record(params: SamplingParams, kwargs: dict[str, Any]) -> dict[str, Any]:
    """What ``--gen-kwargs`` adds to ``run.json``'s ``sampling``: the settings it gave (nothing without it)."""
    record: dict[str, Any] = {}
    if any(ALIASES.get(key, key) == "stop" for key in kwargs):
        record["stop"] = list(params.stop)
    for key in OPTIONAL_FIELDS:
        value = getattr(params, key)
        if value is not None:
            record[key] = json.loads(value) if key == "extra_body" else value
    return record


def check_supported(params: SamplingParams, backend: Backend) -> None:
    """Refuse settings the backend cannot honour (its ``unsupported_sampling``) before any request."""
    refused = [key for key in sorted(backend.unsupported_sampling) if getattr(params, key, None) is not None]
    if refused:
        raise SettingError(
            SETTING,
            ", ".join(refused),
            quoted=False,
            problem=f"the {backend.name} backend cannot apply "
            f"{'it' if len(refused) == 1 else 'them'} (it would answer as if not asked); drop "
            f"{'it' if len(refused) == 1 else 'them'} or use a backend that can (openai, vllm)",
        )
