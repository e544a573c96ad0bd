"""How many questions a run asks at once, and how many sequences a local model generates together.

``--batch-size N`` is both: the run asks ``N`` questions per backend call (and writes their
records as that call returns), and a backend with a micro-batch of its own (the transformers
backend's ``batch_size``) generates those ``N`` together, unless ``-B batch_size=`` says otherwise.

``--batch-size auto`` (the default) picks by where the model runs:

- a local model on a GPU: the largest batch whose forward pass over the longest prompt plus the
  token budget fits in memory, doubling from 1 until the memory says stop (as lm-eval's
  ``--batch_size auto``), probed once before the first question;
- a local model on a CPU: measured. A few decoding steps at 1, 2, 4... sequences (at most
  :data:`CPU_PROBE_CAP`, and never more than the questions) give the tokens per second of each size
  (``measure_batch_speed``); the smallest batch within :data:`CPU_GAIN` of the fastest is taken. The
  backend generates that many together by continuous batching, and each answer is written as soon
  as it is finished, so a Ctrl-C loses only the answers being generated, never a finished one;
- a backend without a micro-batch (an OpenAI-compatible server, vLLM, replay): 16 questions per call, or
  the backend's ``concurrency`` (requests it sends at once) when that is more.

A backend that streams its answers (``generate_stream``: transformers, vLLM) is handed all the
questions at once and every answer is written as it comes; the others are asked ``questions_per_call``
questions at a time, whose answers are written when the call returns.
What was chosen, and why (for a CPU, the tokens per second measured), is recorded in ``run.json`` (``batch``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

from kg.errors import SettingError

log = logging.getLogger(__name__)

BatchSize = int | Literal["auto"]
SERVER_BATCH = 16
"""Questions per call (and per checkpoint) of ``auto`` for a backend without a micro-batch."""
PROBE_CAP = 256
"""The largest batch ``auto`` tries on a GPU."""
CPU_PROBE_CAP = 32
"""The largest batch ``auto`` measures on a CPU."""
CPU_GAIN = 0.10
"""On a CPU, the smallest batch that decodes at most this much fewer tokens per second than the fastest is taken."""


def parse_batch_size(text: str | int) -> BatchSize:
    """``auto`` or a whole number of at least 1, or an :class:`InputError` naming ``--batch-size``."""
    if isinstance(text, int) or str(text).strip().isdigit():
        value = int(text)
        if value >= 1:
            return value
    elif str(text).strip().lower() == "auto":
        return "auto"
    raise SettingError("batch_size", text, "give a whole number of at least 1, or auto")


def backend_batch(
    asked: BatchSize,
    backend: Any,
    pinned: bool,
    questions: int,
    sequence_tokens: Callable[[], int],
    earlier: dict[str, Any] | None = None,
) -> tuple[int, dict[str, Any]]:
    """``(questions per call, what run.json records)`` for ``asked`` and a loaded ``backend``.

    A backend with a micro-batch (an int ``batch_size`` attribute) is set to the run's batch,
    unless ``pinned`` (the user gave ``-B batch_size=``); ``auto`` is resolved as the module says.
    ``sequence_tokens`` gives the longest prompt plus the token budget, asked only when a GPU is probed.
    ``earlier``: the batch ``run.json`` recorded when the run was started; a CPU measured then on the
    same device is not measured again on resume.
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
    if not device.startswith("cuda") and hasattr(backend, "measure_batch_speed"):
        if earlier and earlier.get("tokens_per_s") and earlier.get("device") == device:
            backend.batch_size = size = int(earlier["generated_together"])
            log.info("batch size auto: %d sequences together on %s, as measured when the run started", size, device)
            return size, dict(earlier)
        return _measured(backend, device, questions)
    if not device.startswith("cuda") or not hasattr(backend, "probe_batch_size"):
        backend.batch_size = 1
        why = f"{device or 'this device'}: one answer per call (the backend cannot measure its speed by batch)"
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


def _measured(backend: Any, device: str, questions: int) -> tuple[int, dict[str, Any]]:
    """The batch a CPU decodes fastest with, measured on the loaded model, and its record."""
    sizes = [size for size in _doublings(min(CPU_PROBE_CAP, max(1, questions)))]
    speeds = {int(k): float(v) for k, v in backend.measure_batch_speed(sizes).items()}
    size = faster_batch(speeds)
    backend.batch_size = size
    shown = ", ".join(f"{k}: {v:.1f}" for k, v in sorted(speeds.items()))
    log.info("batch size auto: %d sequences together on %s (tokens/s by batch: %s)", size, device, shown)
    why = f"{device}: measured decoding tokens/s by batch ({shown}); the smallest within {CPU_GAIN:.0%} of the fastest"
    return size, {
        "asked": "auto",
        "questions_per_call": size,
        "generated_together": size,
        "device": device,
        "tokens_per_s": {str(k): round(v, 2) for k, v in sorted(speeds.items())},
        "why": why,
    }


def _doublings(cap: int) -> list[int]:
    """1, 2, 4... up to ``cap``, and ``cap`` itself when it is no power of two."""
    sizes = [1]
    while sizes[-1] * 2 <= cap:
        sizes.append(sizes[-1] * 2)
    return sizes if sizes[-1] == cap else [*sizes, cap]


def faster_batch(speeds: dict[int, float], gain: float = CPU_GAIN) -> int:
    """The batch to take from measured tokens/s by batch size: the smallest within ``gain`` of the fastest.

    A larger batch holds more memory (its key/value cache) for nothing once the speed stops growing.

    >>> faster_batch({1: 5.0, 2: 9.5, 4: 17.0, 8: 26.0, 16: 28.0, 32: 27.5})
    8
    """
    best = max(speeds.values())
    return min(size for size, speed in speeds.items() if speed >= best * (1 - gain))
