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

from runners.loop_guard import LoopWatch

log = logging.getLogger(__name__)

LOOP_CHECK_STEPS = 16
"""On a GPU the loop guard reads the new tokens back once every this many steps (one synchronisation)."""


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


def loop_stopper(prompt_width: int, window: int, eos_ids: Collection[int], every: int) -> Any:
    """A ``transformers.StoppingCriteria`` that stops each row once the loop guard sees it loop.

    It reads the new tokens back every ``every`` steps, so a row may run up to ``every - 1`` tokens
    past the point where it looped; the answer is cut at that point afterwards
    (:func:`runners.backends._shared.finish_tokens`), so the record does not depend on ``every``.
    """
    import torch
    from transformers import StoppingCriteria

    class LoopStopper(StoppingCriteria):
        def __init__(self) -> None:
            self.watches: list[LoopWatch] = []
            self.ended: list[bool] = []
            self.read = 0
            self.steps = 0
            self.flags: Any = None

        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            rows = input_ids.shape[0]
            if not self.watches:
                self.watches = [LoopWatch(window) for _ in range(rows)]
                self.ended = [False] * rows
            self.steps += 1
            if self.flags is None or self.steps % every == 0:
                fresh = input_ids[:, prompt_width + self.read :].tolist()  # the one read back, once a check
                self.read += len(fresh[0])
                for row, tokens in enumerate(fresh):
                    for token in tokens:
                        if self.ended[row]:
                            break
                        self.ended[row] = token in eos_ids or self.watches[row].push(token)
                looped = [watch.looped for watch in self.watches]
                self.flags = torch.tensor(looped, dtype=torch.bool, device=input_ids.device)
            return self.flags

    return LoopStopper()
