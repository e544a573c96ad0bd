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

from runners.backends._shared import finish_decoded
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
        """``(index, result)`` for each ``(index, prompt ids)`` of ``items``, in the order they finish.

        Stopped by an exception (SIGINT, SIGTERM, raised where the main thread waits or when a shield
        ends), the engine is stopped hard and every answer it had finished by then is still handed
        over before the exception goes on; the sequences in flight are dropped.
        """
        sample = params.temperature > 0
        per_prompt = params.n if sample else 1
        manager = self.lm.init_continuous_batching(
            generation_config=self._generation_config(params, sample, per_prompt),
            continuous_batching_config=self._batching_config(items, params, slots * per_prompt, sample),
        )
        manager.start()
        flight = _Flight(self, manager, params, per_prompt, every_s)
        try:
            flight.add(items)
            while flight.left:
                if not flight.wait():
                    error = manager.background_thread_status.fatal_error
                    yield from flight.fail_rest(f"the generation loop stopped: {error}")
                    return
                with shielded():  # from the engine's hand-over to the caller's write of every answer taken
                    yield from flight.take()
                    flight.progress.log()
        except GeneratorExit:  # the caller stopped asking: nothing more to hand over
            raise
        except BaseException:
            with shielded():
                _stop(manager)
                flight.stopped = True
                yield from flight.take()  # the answers the engine finished before it stopped
            raise
        finally:
            _stop(manager)
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

    def ended(self, tokens: list[int], params: SamplingParams) -> tuple[str, int, str]:
        """``(text, tokens counted, finish reason)`` of a finished sequence, by every path's one rule."""
        return finish_decoded(tokens, params, self.eos_ids, self.tokenizer)


class _Flight:
    """The sequences one stream has asked the engine for, followed output by output."""

    def __init__(self, engine: Engine, manager: Any, params: SamplingParams, per_prompt: int, every_s: float) -> None:
        from transformers.generation.continuous_batching import RequestStatus

        self.engine = engine
        self.manager = manager
        self.params = params
        self.per_prompt = per_prompt
        self.finished_status = RequestStatus.FINISHED
        self.by_engine_id: dict[str, tuple[_Request, _Sample]] = {}
        self.left = 0
        self.stopped = False
        """Set once this side stopped the engine: the sequences it failed then are dropped, not answered."""
        self.outputs: queue.Queue[Any] = manager.output_router.output_queue
        self.progress = _Progress(0, every_s)

    def add(self, items: Sequence[tuple[int, list[int]]]) -> None:
        """Ask the engine for every prompt; it takes ``slots`` of them at a time."""
        limit = self.engine.max_length
        for index, ids in items:
            request = _Request(index, len(ids))
            rid = f"r{index}"
            self.manager.add_request(
                ids,
                request_id=rid,
                max_new_tokens=max(1, min(self.params.max_tokens, limit - len(ids))),
                streaming=True,
                eos_token_id=list(self.engine.eos_ids),
            )
            for engine_id in [rid, *(f"{rid}__child#{i}" for i in range(self.per_prompt - 1))]:
                one = _Sample(engine_id, LoopWatch(self.params.loop_guard))
                request.samples.append(one)
                self.by_engine_id[engine_id] = (request, one)
            self.left += 1
        self.progress.rows = self.left * self.per_prompt

    def wait(self) -> bool:
        """Until the engine has an output (``True``) or has stopped (``False``); a signal may raise here."""
        while self.outputs.empty():
            if not self.manager.is_running():
                return not self.outputs.empty()
            time.sleep(POLL_S)  # nothing is taken while waiting: a signal here loses no answer
            self.progress.log()
        return True

    def take(self) -> Iterator[tuple[int, GenerationResult]]:
        """Every output waiting now; ``(index, result)`` for each request whose samples are all done."""
        for output in _drain(self.outputs):
            found = self.by_engine_id.get(output.request_id)
            if found is None or found[1].done is not None:
                continue  # a cancelled sequence's last step
            request, one = found
            before = len(one.watch.tokens)
            self._follow(one, output)
            self.progress.tokens += len(one.watch.tokens) - before
            if one.done is None:
                continue
            self.progress.done += 1
            if all(s.done is not None for s in request.samples):
                self.left -= 1
                yield request.index, self._result(request)

    def _follow(self, one: _Sample, output: Any) -> None:
        """Follow one streamed output of a sequence; set ``one.done`` when it is finished or must stop."""
        if output.error is not None:
            if not self.stopped:  # a sequence the hard stop cut is asked again on resume, not failed
                one.done = ("", 0, f"error: {output.error}")
            return
        new = output.generated_tokens[len(one.watch.tokens) :]
        finished = one.watch.extend(new) or output.status >= self.finished_status
        kept = one.watch.tokens  # up to where the guard stopped it
        stop = self.params.stop
        if stop and not finished:
            tail = self.engine.tokenizer.decode(kept[-(len(new) + STOP_TAIL_TOKENS) :], skip_special_tokens=True)
            finished = any(s and s in tail for s in stop)
        if not finished:
            return
        if output.status < self.finished_status:
            self.manager.cancel_request(one.engine_id)
        one.done = self.engine.ended(kept, self.params)

    def _result(self, request: _Request) -> GenerationResult:
        done = [one.done for one in request.samples if one.done is not None]
        errors = [reason[len("error: ") :] for _, _, reason in done if reason.startswith("error: ")]
        if errors:
            return GenerationResult("", error=errors[0], prompt_tokens=request.prompt_tokens)
        if self.per_prompt == 1:
            done *= self.params.n  # greedy: the one answer n times, as the static path
        return GenerationResult(
            "",
            texts=[text for text, _, _ in done],
            finish_reasons=[reason for _, _, reason in done],
            prompt_tokens=request.prompt_tokens,
            completion_tokens=sum(count for _, count, _ in done),
            latency_s=time.perf_counter() - request.started,
        )

    def fail_rest(self, error: str) -> Iterator[tuple[int, GenerationResult]]:
        """A failed result for every request not answered (the engine stopped on an error)."""
        pending = {id(r): r for r, one in self.by_engine_id.values() if one.done is None}
        with shielded():
            for request in pending.values():
                yield request.index, GenerationResult("", error=error, prompt_tokens=request.prompt_tokens)


def _stop(manager: Any) -> None:
    """Stop the engine's thread now, if it runs: the sequences in flight are dropped, not finished."""
    if manager.is_running():
        manager.stop(block=True, hard_stop=True)


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
