"""Continuous batching with transformers' own engine: each answer leaves the batch as it finishes.

transformers (5.x) runs ``ContinuousBatchingManager`` (``model.init_continuous_batching()``, what
``generate_batch`` uses) in a background thread over a paged key/value cache: up to ``slots``
sequences are decoded together, a finished one is handed back at once and a waiting prompt takes
its place. It works on a CPU with the SDPA attention (``paged|sdpa``). Here it is asked to stream,
so that the main thread sees every new token and can stop a sequence early: at a stop string, or
when the loop guard (:mod:`runners.loop_guard`) sees it repeat itself; such a sequence is cancelled
and its answer is the tokens up to that point.

What the main thread does between taking an output from the engine and the caller's write of the
answer runs :func:`runners.stopping.shielded`, so that SIGINT or SIGTERM never drops a finished answer;
a signal that comes while the main thread waits stops the engine (a hard stop: the sequences in
flight are dropped and asked again on resume).
"""

from __future__ import annotations

import logging
import math
import queue
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from runners.backends._shared import finish_tokens
from runners.backends.base import GenerationResult, SamplingParams
from runners.loop_guard import LoopWatch
from runners.stopping import shielded

log = logging.getLogger(__name__)

PAGE_TOKENS = 256
"""Tokens per page of the paged cache (transformers' default)."""
STEP_TOKENS = 512
"""Most tokens one forward pass takes (a longer prompt is prefilled over several): it bounds the
attention mask SDPA needs, which grows with it times the cache's size."""
STOP_TAIL_TOKENS = 32
"""Tokens before the new ones decoded to look for a stop string that a new token completes."""
POLL_S = 0.02
"""How often the main thread looks for new outputs; it takes them only inside a shield."""


@dataclass
class _Sample:
    """One sequence in flight: the engine's request id, its tokens so far, its guard."""

    engine_id: str
    watch: LoopWatch
    done: tuple[str, int, str] | None = None
    """``(text, tokens counted, finish reason)`` once finished."""


@dataclass
class _Request:
    index: int
    prompt_tokens: int
    samples: list[_Sample] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)


class Engine:
    """What the stream needs of the backend: its model, tokenizer and end-of-sequence ids."""

    def __init__(self, lm: Any, tokenizer: Any, eos_ids: list[int], max_length: int) -> None:
        self.lm = lm
        self.tokenizer = tokenizer
        self.eos_ids = eos_ids
        self.max_length = max_length

    def stream(
        self, items: Sequence[tuple[int, list[int]]], params: SamplingParams, slots: int, every_s: float
    ) -> Iterator[tuple[int, GenerationResult]]:
        """``(index, result)`` for each ``(index, prompt ids)`` of ``items``, in the order they finish."""
        sample = params.temperature > 0
        per_prompt = params.n if sample else 1
        manager = self.lm.init_continuous_batching(
            generation_config=self._generation_config(params, sample, per_prompt),
            continuous_batching_config=self._batching_config(items, params, slots * per_prompt, sample),
        )
        manager.start()
        try:
            yield from self._follow(manager, items, params, per_prompt, sample, every_s)
        finally:
            # Hard: on an interruption the sequences in flight are dropped (asked again on resume), not finished.
            manager.stop(block=True, hard_stop=True)
            manager.destroy()

    def _generation_config(self, params: SamplingParams, sample: bool, per_prompt: int) -> Any:
        from transformers import GenerationConfig

        # Explicit values, as in the static path: the checkpoint's generation_config does not leak in.
        return GenerationConfig(
            do_sample=sample,
            temperature=params.temperature if sample else 1.0,
            top_p=params.top_p if sample else 1.0,
            top_k=0 if sample else None,
            repetition_penalty=1.0,
            num_return_sequences=per_prompt,
            eos_token_id=list(self.eos_ids),
            pad_token_id=self.eos_ids[0],
            max_new_tokens=params.max_tokens,
        )

    def _batching_config(
        self, items: Sequence[tuple[int, list[int]]], params: SamplingParams, sequences: int, sample: bool
    ) -> Any:
        from transformers import ContinuousBatchingConfig

        longest = max(len(ids) for _, ids in items) + params.max_tokens
        pages = math.ceil(min(longest, self.max_length) / PAGE_TOKENS) + 1
        return ContinuousBatchingConfig(
            page_size=PAGE_TOKENS,
            num_blocks=sequences * pages + 1,
            max_batch_tokens=STEP_TOKENS,
            max_requests_per_batch=sequences,
            allow_block_sharing=False,
            auto_switch_to_flash=False,
            use_cuda_graph=False,
            drop_unsupported_processors=False,
            seed=params.seed if sample and params.seed is not None else None,
        )

    def _follow(
        self,
        manager: Any,
        items: Sequence[tuple[int, list[int]]],
        params: SamplingParams,
        per_prompt: int,
        sample: bool,
        every_s: float,
    ) -> Iterator[tuple[int, GenerationResult]]:
        from transformers.generation.continuous_batching import RequestStatus

        by_engine_id: dict[str, tuple[_Request, _Sample]] = {}
        left = len(items)
        for index, ids in items:
            request = _Request(index, len(ids))
            rid = f"r{index}"
            manager.add_request(
                ids,
                request_id=rid,
                max_new_tokens=max(1, min(params.max_tokens, self.max_length - len(ids))),
                streaming=True,
                eos_token_id=list(self.eos_ids),
            )
            engine_ids = [rid, *(f"{rid}__child#{i}" for i in range(per_prompt - 1))]
            for engine_id in engine_ids:
                one = _Sample(engine_id, LoopWatch(params.loop_guard))
                request.samples.append(one)
                by_engine_id[engine_id] = (request, one)
        outputs = manager.output_router.output_queue
        progress = _Progress(len(items) * per_prompt, every_s)
        while left:
            if outputs.empty():
                if not manager.is_running():
                    error = manager.background_thread_status.fatal_error
                    yield from self._fail_rest(by_engine_id, f"the generation loop stopped: {error}")
                    return
                time.sleep(POLL_S)  # interruptible: a signal here stops the engine, nothing taken is lost
                progress.log()
                continue
            with shielded():  # from the engine's hand-over to the caller's write of every answer taken
                for output in _drain(outputs):
                    found = by_engine_id.get(output.request_id)
                    if found is None or found[1].done is not None:
                        continue  # a cancelled sequence's last step
                    request, one = found
                    before = len(one.watch.tokens)
                    self._take(manager, one, output, params, RequestStatus)
                    progress.tokens += len(one.watch.tokens) - before
                    if one.done is None:
                        continue
                    progress.done += 1
                    if all(s.done is not None for s in request.samples):
                        left -= 1
                        yield request.index, self._result(request, params, sample)
                progress.log()

    def _take(self, manager: Any, one: _Sample, output: Any, params: SamplingParams, status: Any) -> None:
        """Follow one streamed output of a sequence; set ``one.done`` when it is finished or must stop."""
        if output.error is not None:
            one.done = ("", 0, f"error: {output.error}")
            return
        new = output.generated_tokens[len(one.watch.tokens) :]
        finished = one.watch.extend(new) or output.status >= status.FINISHED
        kept = one.watch.tokens  # up to where the guard stopped it
        if params.stop and not finished:
            tail = self.tokenizer.decode(kept[-(len(new) + STOP_TAIL_TOKENS) :], skip_special_tokens=True)
            finished = any(s and s in tail for s in params.stop)
        if not finished:
            return
        if output.status < status.FINISHED:
            manager.cancel_request(one.engine_id)
        one.done = finish_tokens(
            kept,
            eos_ids=self.eos_ids,
            stop=params.stop,
            loop_window=params.loop_guard,
            decode=lambda ids: self.tokenizer.decode(ids, skip_special_tokens=True),
        )

    def _result(self, request: _Request, params: SamplingParams, sample: bool) -> GenerationResult:
        done = [one.done for one in request.samples if one.done is not None]
        errors = [reason[len("error: ") :] for _, _, reason in done if reason.startswith("error: ")]
        if errors:
            return GenerationResult("", error=errors[0], prompt_tokens=request.prompt_tokens)
        if not sample:
            done *= params.n
        return GenerationResult(
            "",
            texts=[text for text, _, _ in done],
            finish_reasons=[reason for _, _, reason in done],
            prompt_tokens=request.prompt_tokens,
            completion_tokens=sum(count for _, count, _ in done),
            latency_s=time.perf_counter() - request.started,
        )

    def _fail_rest(
        self, by_engine_id: dict[str, tuple[_Request, _Sample]], error: str
    ) -> Iterator[tuple[int, GenerationResult]]:
        pending = {id(r): r for r, one in by_engine_id.values() if one.done is None}
        for request in pending.values():
            yield request.index, GenerationResult("", error=error, prompt_tokens=request.prompt_tokens)


def _drain(outputs: queue.Queue[Any]) -> list[Any]:
    """Every output waiting in the engine's queue, taken without blocking."""
    taken = []
    while True:
        try:
            taken.append(outputs.get_nowait())
        except queue.Empty:
            return taken


class _Progress:
    """A log line every ``every_s`` seconds, as the static path's counter: sequences finished, tokens, tokens/s."""

    def __init__(self, rows: int, every_s: float) -> None:
        self.rows = rows
        self.every_s = every_s
        self.done = 0
        self.tokens = 0
        self.logged = -1
        self.start = self.last = time.monotonic()

    def log(self) -> None:
        now = time.monotonic()
        if now - self.last < self.every_s or self.tokens == self.logged:
            return
        self.last, self.logged = now, self.tokens
        elapsed = now - self.start
        log.info(
            "%d/%d sequences finished, %d tokens in %.1f s (%.1f tokens/s; continuous batching)",
            self.done,
            self.rows,
            self.tokens,
            elapsed,
            self.tokens / elapsed if elapsed > 0 else 0.0,
        )
