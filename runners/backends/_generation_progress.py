"""How far one long ``generate`` call of a local model is, logged while it runs.

transformers' ``generate`` hands a streamer the prompt ids once, then each step's next token of
every row; a row that has finished gets padding (the EOS id here) from then on. Counting those
gives the sequences finished and the tokens generated, logged every ``every_s`` seconds, so a
log shows a chain-of-thought batch of minutes moving (the run's own lines come only at its ends).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection
from typing import Any

log = logging.getLogger(__name__)


class ProgressStreamer:
    """A streamer for ``generate(streamer=...)`` (duck-typed: ``put`` and ``end``) that logs progress."""

    def __init__(
        self,
        rows: int,
        eos_ids: Collection[int],
        every_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``rows``: sequences generated (prompts x samples); ``every_s``: seconds between lines (0: every step)."""
        self.rows = rows
        self.eos_ids = frozenset(eos_ids)
        self.every_s = every_s
        self.clock = clock
        self.finished = [False] * rows
        self.tokens = 0
        """Tokens generated so far, each row's EOS included, padding after it not."""
        self._prompt_seen = False
        self._start = clock()
        self._last = self._start

    def put(self, value: Any) -> None:
        """Take the prompt ids (first call), then one step's next tokens, one per row."""
        if not self._prompt_seen:
            self._prompt_seen = True
            return
        for row, token in enumerate(value.reshape(-1).tolist()[: self.rows]):
            if not self.finished[row]:
                self.tokens += 1
                self.finished[row] = token in self.eos_ids
        now = self.clock()
        if now - self._last >= self.every_s:
            self._last = now
            elapsed = now - self._start
            log.info(
                "%d/%d sequences of this batch finished, %d tokens in %.1f s (%.1f tokens/s)",
                sum(self.finished),
                self.rows,
                self.tokens,
                elapsed,
                self.tokens / elapsed if elapsed > 0 else 0.0,
            )

    def end(self) -> None:
        """Called once generation is over: the run's batch line says the rest."""
