"""The loop guard: a generated sequence whose last tokens repeat one piece over and over is stopped there.

Small models stuck in a loop write the same line, clause or list until the token budget ends
(``data/ck12_errors`` holds real ones: a sentence of 20 tokens written 40 times). Such an answer
holds a batch for its whole budget and ends with no answer; CK12's paper counts it as gibberish.

The rule, on token ids: a sequence *loops* once its last ``window`` tokens (at least; and at
least two whole copies of the piece) are one piece of ``p`` tokens (``1 <= p <= MAX_PERIOD``)
written again and again, each copy exactly the one before. The answer keeps every token up to that
point and is recorded with the finish reason ``loop`` (``RunRecord.finish_reason``, counted as
``loops`` in ``summary.json``); extraction and grading read it like any cut-off answer.

:data:`LOOP_WINDOW` was chosen on the development half of real Chinese chain-of-thought answers of
Qwen2.5-Coder-0.5B-Instruct and checked on the other half (docs/performance.md, "The loop guard");
``benchmarks/loop_guard.py`` prints both. A window of 0 turns the guard off.
"""

from __future__ import annotations

from collections.abc import Sequence

LOOP_WINDOW = 64
"""Tokens a repeating tail must span before the sequence is stopped (``--loop-guard``)."""
MAX_PERIOD = 256
"""The longest repeated piece looked for, in tokens: a loop of a longer paragraph is not caught
(two copies of it fill half the 1,024-token chain-of-thought budget)."""
FINISH_LOOP = "loop"
"""The finish reason of a sequence the guard stopped."""


class LoopWatch:
    """Follows one sequence token by token; :meth:`push` says when its tail has become a loop.

    For every period ``p`` it keeps how many of the latest tokens equal the token ``p`` before
    them, so each token costs ``max_period`` comparisons, whatever the sequence's length.
    """

    def __init__(self, window: int, max_period: int = MAX_PERIOD) -> None:
        if window < 0:
            raise ValueError(f"the loop window must be 0 (off) or more, got {window}")
        self.window = window
        self.max_period = max_period
        self.tokens: list[int] = []
        self._runs = [0] * (max_period + 1)
        self.looped = False

    def push(self, token: int) -> bool:
        """Add the next token; ``True`` once the sequence loops (never with window 0).

        Once it loops, further tokens are not kept: :attr:`tokens` ends where the guard stopped it.
        """
        if self.looped:
            return True
        if not self.window:
            self.tokens.append(token)
            return False
        self.looped = self.span(token) >= self.window
        return self.looped

    def extend(self, tokens: Sequence[int]) -> bool:
        """Push each of ``tokens`` until the sequence loops; ``True`` if it does."""
        return any(self.push(token) for token in tokens)

    def span(self, token: int) -> int:
        """Add the next token; how many of the last tokens repeat one piece (two whole copies at least), or 0."""
        tokens = self.tokens
        tokens.append(token)
        last = len(tokens) - 1
        runs = self._runs
        longest = 0
        for period in range(1, min(self.max_period, last) + 1):
            if tokens[last - period] == token:
                run = runs[period] + 1
                runs[period] = run
                # The tail that repeats with this period spans run + period tokens.
                if run >= period and run + period > longest:
                    longest = run + period
            else:
                runs[period] = 0
        return longest


def loop_spans(tokens: Sequence[int], max_period: int = MAX_PERIOD) -> list[int]:
    """After each of ``tokens``, the span of the repeating tail (:meth:`LoopWatch.span`): one pass for every window."""
    watch = LoopWatch(0, max_period)
    return [watch.span(token) for token in tokens]


def loop_end(tokens: Sequence[int], window: int, max_period: int = MAX_PERIOD) -> int | None:
    """How many of ``tokens`` a guard of ``window`` keeps: the length at which it stops them, or ``None``.

    The same rule as :class:`LoopWatch`, applied to a whole sequence after the fact (a backend whose
    engine cannot stop a sequence itself cuts its answer here, so that its records match).
    """
    if not window:
        return None
    return first_at_least(loop_spans(tokens, max_period), window)


def first_at_least(spans: Sequence[int], window: int) -> int | None:
    """The length at which a guard of ``window`` stops a sequence with these :func:`loop_spans`, or ``None``."""
    return next((count for count, span in enumerate(spans, start=1) if span >= window), None)
