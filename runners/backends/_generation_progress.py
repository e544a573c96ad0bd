"""How far one long ``generate`` call of a local model is, logged while it runs, at no per-token cost.

transformers' ``generate`` asks its stopping criteria after every step with the sequences so far
(on the model's device). :class:`ProgressCounter` is such a criterion that never stops a row: it
keeps the count of finished rows and of generated tokens *on the device* (no host transfer, so
no GPU synchronisation per token, which a streamer costs: ``generate`` copies each step's tokens
to the CPU for it), and reads them back only when a line is due, every ``every_s`` seconds. So a
log shows a chain-of-thought batch of minutes moving (the run's own lines come only at its ends).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection
from typing import Any

log = logging.getLogger(__name__)


def progress_counter(
    rows: int, eos_ids: Collection[int], every_s: float, clock: Callable[[], float] = time.monotonic
) -> Any:
    """A ``transformers.StoppingCriteria`` that logs progress and stops nothing (transformers imported here)."""
    import torch
    from transformers import StoppingCriteria

    class ProgressCounter(StoppingCriteria):
        """Counts on the device; one host read per log line."""

        def __init__(self) -> None:
            self.rows = rows
            self.every_s = every_s
            self._eos: Any = None
            self._finished: Any = None
            self._tokens: Any = None
            self._never: Any = None
            self._start = clock()
            self._last = self._start

        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            last = input_ids[:, -1]
            if self._finished is None:
                self._eos = torch.tensor(sorted(eos_ids), device=last.device)
                self._finished = torch.zeros_like(last, dtype=torch.bool)
                self._tokens = torch.zeros((), dtype=torch.long, device=last.device)
                self._never = torch.zeros_like(last, dtype=torch.bool)
            self._tokens += (~self._finished).sum()  # each row's EOS counts, the padding after it does not
            self._finished |= torch.isin(last, self._eos)
            now = clock()
            if now - self._last >= self.every_s:
                self._last = now
                elapsed = now - self._start
                tokens = int(self._tokens)  # the one synchronisation, once a line
                log.info(
                    "%d/%d sequences of this batch finished, %d tokens in %.1f s (%.1f tokens/s)",
                    int(self._finished[: self.rows].sum()),
                    self.rows,
                    tokens,
                    elapsed,
                    tokens / elapsed if elapsed > 0 else 0.0,
                )
            return self._never

    return ProgressCounter()
