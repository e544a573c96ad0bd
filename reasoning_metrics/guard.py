"""The per-chain boundary of scoring and the detectors: one chain's failure or length never stops a run.

Model output is untrusted text, and one step (``(1+0.001)^5000 = 148``, a million ``!``) or
5,000 steps must not crash or stall scoring for every other chain, on every resume.
:func:`checking` runs one chain's work with a time budget: the detectors' loops call :func:`tick`
between steps, and the batched model calls (:mod:`reasoning_metrics.batching`) between batches,
which raises :class:`TooLong` once the chain's budget is spent; any other exception is caught
here too. Either way the caller gets an :class:`Outcome` saying why the chain was not
checked, and records it on that chain.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")

CHAIN_BUDGET_S = 5.0
"""Default seconds the detectors may spend on one chain before it is recorded as not checked
(too long). Ordinary chains take milliseconds; the budget is only there for pathological text."""

SCORE_BUDGET_S = 10.0
"""Default seconds the model passes and metrics may spend on one long chain (see
:data:`reasoning_metrics.scoring.GUARDED_TEXTS`) before it is recorded as not scored (too long).
Longer than the detectors' budget: it covers the encoder, NLI and language-model calls on a CPU."""

NotChecked = Literal["error", "too_long"]

clock: Callable[[], float] = time.monotonic
"""The seconds the budgets are counted in (a module attribute, so a test can drive time itself)."""

_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("detector_deadline", default=None)


class TooLong(Exception):
    """The chain's time budget is spent."""


def tick() -> None:
    """Raise :class:`TooLong` if the current chain's budget is spent (a no-op outside :func:`checking`)."""
    deadline = _DEADLINE.get()
    if deadline is not None and clock() >= deadline:
        raise TooLong("over the time budget")


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """What checking one chain gave: a value, or why there is none."""

    value: T | None
    status: NotChecked | None = None
    """``None`` when checked; ``error`` (an unexpected exception) or ``too_long`` (over budget)."""
    reason: str = ""
    """One line for a reader: the exception's type and first line, or the budget."""
    spent_s: float = 0.0
    """Seconds ``fn`` ran: what is left of the chain's budget for work that follows on the same chain."""


def checking(fn: Callable[[], T], budget_s: float | None = CHAIN_BUDGET_S) -> Outcome[T]:
    """``fn()`` under a deadline of ``budget_s`` seconds (``None``: none), never raising."""
    start = clock()
    token = _DEADLINE.set(None if budget_s is None else start + budget_s)
    try:
        value = fn()
    except TooLong:
        return Outcome(None, "too_long", too_long_reason(budget_s), clock() - start)
    except Exception as exc:  # the boundary: any bug or odd input stays with its chain
        return Outcome(None, "error", f"not checked (error: {describe(exc)})", clock() - start)
    finally:
        _DEADLINE.reset(token)
    return Outcome(value, spent_s=clock() - start)


def left_of(budget_s: float | None, spent: Outcome[Any]) -> float | None:
    """What is left of a chain's budget after ``spent`` (``None``: no budget)."""
    return None if budget_s is None else max(0.0, budget_s - spent.spent_s)


def too_long_reason(budget_s: float | None, what: str = "checked") -> str:
    """``not checked (too long: over the 5 s budget of a chain)``."""
    return f"not {what} (too long: over the {budget_s:g} s budget of a chain)"


def describe(exc: BaseException) -> str:
    """``Type: first line of the message``, at most 300 characters."""
    first = next((line for line in str(exc).splitlines() if line.strip()), "")
    text = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return text[:300]
