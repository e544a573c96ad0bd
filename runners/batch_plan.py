"""How many questions a run asks at once, and how many sequences a local model generates together.

``--batch-size N`` is both: the run asks ``N`` questions per backend call (and writes their
records as that call returns), and a backend with a micro-batch of its own (the transformers
backend's ``batch_size``) generates those ``N`` together, unless ``-B batch_size=`` says otherwise.

``--batch-size auto`` (the default) picks by where the model runs:

- a local model on a GPU: the largest batch whose forward pass over the longest prompt plus the
  token budget fits in memory, doubling from 1 until the memory says stop (as lm-eval's
  ``--batch_size auto``), probed once before the first question;
- a local model on a CPU: 1, so that the records of every answer are on disk as soon as it is
  generated and a Ctrl-C loses at most the answer in flight (batching buys little on a CPU);
- a backend without a micro-batch (an OpenAI-compatible server, vLLM, replay): 16 questions per call, or
  the backend's ``concurrency`` (requests it sends at once) when that is more.

What was chosen, and why, is recorded in ``run.json`` (``batch``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

from kg.errors import InputError

log = logging.getLogger(__name__)

BatchSize = int | Literal["auto"]
SERVER_BATCH = 16
"""Questions per call (and per checkpoint) of ``auto`` for a backend without a micro-batch."""
PROBE_CAP = 256
"""The largest batch ``auto`` tries on a GPU."""


def parse_batch_size(text: str | int) -> BatchSize:
    """``auto`` or a whole number of at least 1, or an :class:`InputError` naming ``--batch-size``."""
    if isinstance(text, int) or str(text).strip().isdigit():
        value = int(text)
        if value >= 1:
            return value
    elif str(text).strip().lower() == "auto":
        return "auto"
    raise InputError(f"--batch-size {text!r}: give a whole number of at least 1, or auto")


def backend_batch(
    asked: BatchSize, backend: Any, pinned: bool, questions: int, sequence_tokens: Callable[[], int]
) -> tuple[int, dict[str, Any]]:
    """``(questions per call, what run.json records)`` for ``asked`` and a loaded ``backend``.

    A backend with a micro-batch (an int ``batch_size`` attribute) is set to the run's batch,
    unless ``pinned`` (the user gave ``-B batch_size=``); ``auto`` is resolved as the module says.
    ``sequence_tokens`` gives the longest prompt plus the token budget, asked only when a GPU is probed.
    """
    micro = getattr(backend, "batch_size", None)
    device = str(getattr(backend, "device", ""))
    if not isinstance(micro, int):
        return _server_batch(asked, getattr(backend, "concurrency", None))
    if pinned:  # -B batch_size=: the backend keeps it; auto asks that many questions at once
        size = micro if asked == "auto" else asked
        return size, {"asked": asked, "questions_per_call": size, "generated_together": micro}
    if asked != "auto":
        backend.batch_size = asked
        return asked, {"asked": asked, "questions_per_call": asked, "generated_together": asked}
    if not device.startswith("cuda") or not hasattr(backend, "probe_batch_size"):
        backend.batch_size = 1
        why = (
            f"{device or 'this device'}: one answer per call, so an interrupted run loses at most the answer in flight"
        )
        return 1, {"asked": "auto", "questions_per_call": 1, "generated_together": 1, "why": why}
    tokens = sequence_tokens()
    size = int(backend.probe_batch_size(tokens, cap=max(1, min(PROBE_CAP, questions))))
    backend.batch_size = size
    log.info("batch size auto: %d sequences of %d tokens fit on %s", size, tokens, device)
    why = (
        f"largest batch of {tokens}-token sequences that fits in {device} memory (doubling from 1, at most {PROBE_CAP})"
    )
    return size, {"asked": "auto", "questions_per_call": size, "generated_together": size, "why": why}


def _server_batch(asked: BatchSize, concurrency: Any) -> tuple[int, dict[str, Any]]:
    """A backend without a micro-batch: ``auto`` asks :data:`SERVER_BATCH` questions per call, or as many as
    the backend sends at once (the openai backend's ``concurrency``) when that is more, so that
    ``-B concurrency=64`` keeps 64 requests in flight without ``--batch-size`` raised too."""
    if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1:
        size = SERVER_BATCH if asked == "auto" else asked
        return size, {"asked": asked, "questions_per_call": size}
    if asked == "auto":
        size = max(SERVER_BATCH, concurrency)
        why = f"{SERVER_BATCH} questions per call, or the backend's concurrency ({concurrency}) when more"
        return size, {"asked": "auto", "questions_per_call": size, "concurrency": concurrency, "why": why}
    if asked < concurrency:
        log.warning(
            "a batch size of %d asks %d questions per call: at most %d of the backend's %d concurrent requests are "
            "in flight; leave the batch size auto or raise it to %d",
            asked,
            asked,
            asked,
            concurrency,
            concurrency,
        )
    return asked, {"asked": asked, "questions_per_call": asked, "concurrency": concurrency}
