"""Small helpers every backend shares: stop strings, token estimates, batching."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from runners.loop_guard import FINISH_LOOP, loop_end

if TYPE_CHECKING:
    from runners.backends.base import SamplingParams

T = TypeVar("T")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD, so that it can be written as UTF-8.

    A model or server can emit half of a surrogate pair (a JSON ``\\ud83d`` escape, a token cut
    in the middle of an emoji); such a string cannot be encoded, and a record holding it could
    never be written. A pair held as two code points is joined into its one character.
    """
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def token_count(value: object) -> int | None:
    """A token count as a backend reported it: a non-negative whole number (``12`` or ``12.0``), else ``None``.

    Servers have answered ``NaN``, ``"many"`` and ``-5.5``; none of them is a count, and recording
    no count is better than a plausible wrong one.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and value >= 0:
        return int(value)
    return None


def truncate_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """Cut ``text`` before the earliest stop string; say whether one was found.

    The stop string itself is dropped, as vLLM and the OpenAI API do.
    """
    cut = min((i for s in stop if s and (i := text.find(s)) >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


def finish_tokens(
    tokens: Sequence[int],
    *,
    eos_ids: Collection[int],
    stop: Sequence[str],
    loop_window: int,
    decode: Callable[[Sequence[int]], str],
) -> tuple[str, int, str]:
    """``(text, tokens counted, finish reason)`` of one generated sequence, whichever way it was generated.

    The sequence ends at its first end-of-sequence token (counted), else where the loop guard of
    ``loop_window`` stops it (``loop``), and its text before the first stop string (``stop``);
    a sequence that reached none of them ran to its budget (``length``). The static batch, the
    continuous one and vLLM all end their answers here, so the same tokens make the same record.
    """
    end = next((k for k, token in enumerate(tokens) if token in eos_ids), None)
    body = tokens if end is None else tokens[:end]
    looped = loop_end(body, loop_window)
    if looped is not None:
        body = body[:looped]
    text, stopped = truncate_at_stop(decode(body), stop)
    if stopped:
        return text, len(body), "stop"
    if looped is not None:
        return text, looped, FINISH_LOOP
    if end is not None:
        return text, end + 1, "stop"
    return text, len(tokens), "length"


def finish_decoded(
    tokens: Sequence[int], params: SamplingParams, eos_ids: Collection[int], tokenizer: Any
) -> tuple[str, int, str]:
    """:func:`finish_tokens` of a sequence a Hugging Face ``tokenizer`` decodes (special tokens dropped), under
    ``params``' stop strings and loop guard: how the transformers backend's static and continuous batches end."""
    return finish_tokens(
        tokens,
        eos_ids=eos_ids,
        stop=params.stop,
        loop_window=params.loop_guard,
        decode=lambda ids: tokenizer.decode(ids, skip_special_tokens=True),
    )


def estimate_tokens(text: str) -> int:
    """A tokenizer-free guess that errs long: one token per 3 UTF-8 bytes.

    CJK characters are 3 bytes and rarely less than one token each; English averages about
    4 characters a token, so prompt budgets built on this guess stay within the context.
    """
    return math.ceil(len(text.encode("utf-8")) / 3)


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of at most ``size`` items (``itertools.batched`` is Python 3.12+)."""
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
