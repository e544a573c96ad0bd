"""The transformers backend: the CPU default, batched ``generate`` with left padding.

Requests are grouped by their sampling parameters (one ``generate`` call serves one set),
sorted by prompt length to waste little padding, and cut into batches of ``batch_size``.
Sampled outputs are reproducible for the same batch composition (one seed per batch).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from runners.backends._generation_progress import progress_counter
from runners.backends._hf_loading import load_causal_lm
from runners.backends._prompts import PromptError, chat_template_hash, has_chat_template, prompt_ids, scoring_ids
from runners.backends._shared import chunked, truncate_at_stop
from runners.backends.base import (
    Backend,
    GenerationRequest,
    GenerationResult,
    LoglikelihoodRequest,
    LoglikelihoodResult,
    SamplingParams,
)

_BATCH_ERRORS = (RuntimeError, ValueError, MemoryError)
"""What a failing batch raises (torch's out-of-memory is a RuntimeError); its requests get ``error``."""


class TransformersBackend(Backend):
    """A causal LM run in-process by transformers; hub id, local folder or GGUF file."""

    name = "transformers"
    protocol_role = "local"
    unsupported_sampling = frozenset({"presence_penalty", "frequency_penalty", "extra_body"})
    """``generate`` has no presence or frequency penalty (``repetition_penalty`` it has), and no request body."""

    def __init__(
        self,
        model: str,
        *,
        device: str = "auto",
        dtype: str = "auto",
        batch_size: int = 8,
        gguf_file: str | None = None,
        gguf_cache: str | None = None,
        chat: bool | None = None,
        max_length: int | None = None,
        trust_remote_code: bool = False,
        progress_every_s: float = 10.0,
    ) -> None:
        """Load ``model``; ``chat`` overrides chat detection (a tokenizer with a chat template).

        ``progress_every_s``: seconds between the log lines (INFO) that say how far one long
        ``generate`` call is (sequences finished, tokens/s); 0 logs every step.
        """
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if progress_every_s < 0:
            raise ValueError(f"progress_every_s must be 0 or more, got {progress_every_s}")
        self.model = model
        self.batch_size = batch_size
        self.progress_every_s = progress_every_s
        self.lm, self.tokenizer, self.device = load_causal_lm(
            model,
            device=device,
            dtype=dtype,
            gguf_file=gguf_file,
            gguf_cache=gguf_cache,
            trust_remote_code=trust_remote_code,
        )
        self.is_chat: bool = has_chat_template(self.tokenizer) if chat is None else chat
        self.chat_template_hash: str | None = chat_template_hash(self.tokenizer)
        """Hash of the tokenizer's chat template (``summary.json`` records it); ``None`` without one."""
        self.max_length: int = max_length or _context_length(self.lm, self.tokenizer)
        self.eos_ids: list[int] = _eos_ids(self.lm, self.tokenizer)

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` (no special tokens added)."""
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """Complete every request; a request or batch that fails gets ``error`` set."""
        results: dict[int, GenerationResult] = {}
        groups: dict[SamplingParams, list[tuple[int, list[int]]]] = defaultdict(list)
        for index, request in enumerate(requests):
            try:
                ids = prompt_ids(self.tokenizer, request.prompt)
            except PromptError as exc:
                results[index] = GenerationResult(request.id, error=str(exc))
                continue
            if len(ids) >= self.max_length:
                results[index] = GenerationResult(
                    request.id,
                    error=f"prompt has {len(ids)} tokens; the model's context is {self.max_length}",
                )
                continue
            groups[request.params].append((index, ids))
        for params, items in groups.items():
            items.sort(key=lambda item: -len(item[1]))
            for chunk in chunked(items, self.batch_size):
                answers = self._generate_halving([ids for _, ids in chunk], params)
                for (index, _), answer in zip(chunk, answers, strict=True):
                    answer.id = requests[index].id
                    results[index] = answer
        return [results[index] for index in range(len(requests))]

    def _generate_halving(self, prompts: list[list[int]], params: SamplingParams) -> list[GenerationResult]:
        """``_generate_batch``; a batch that runs out of GPU memory is split in two and tried again."""
        try:
            return self._generate_batch(prompts, params)
        except _BATCH_ERRORS as exc:
            if len(prompts) > 1 and _out_of_memory(exc):
                _free_cache()
                half = len(prompts) // 2
                return self._generate_halving(prompts[:half], params) + self._generate_halving(prompts[half:], params)
            return [GenerationResult("", error=f"{type(exc).__name__}: {exc}") for _ in prompts]

    def probe_batch_size(self, tokens: int, *, cap: int = 256) -> int:
        """The largest batch (1, 2, 4... at most ``cap``) whose forward pass over ``tokens`` tokens per row fits.

        One forward pass with the cache on holds what generating that many tokens holds at its end
        (the key/value cache of every position), plus the activations of the longest step; only the
        last position's logits are kept, as in generation. Used by ``--batch-size auto`` on a GPU.
        """
        import torch

        tokens = max(1, min(tokens, self.max_length))
        fits, size = 0, 1
        while size <= cap:
            try:
                with torch.inference_mode():
                    ids = torch.full((size, tokens), self.eos_ids[0], dtype=torch.long, device=self.device)
                    self.lm(input_ids=ids, use_cache=True, logits_to_keep=1)
                    del ids
            except _BATCH_ERRORS as exc:
                if not _out_of_memory(exc):
                    raise
                break
            finally:
                _free_cache()
            fits = size
            size = cap if size < cap < size * 2 else size * 2
        return max(1, fits)

    def _generate_batch(self, prompts: list[list[int]], params: SamplingParams) -> list[GenerationResult]:
        import torch

        input_ids, attention = self._left_pad(prompts)
        sample = params.temperature > 0
        per_prompt = params.n if sample else 1
        options: dict[str, Any] = {
            "max_new_tokens": max(1, min(params.max_tokens, self.max_length - input_ids.shape[1])),
            "do_sample": sample,
            # Explicit values so the checkpoint's generation_config (top_k=20, repetition
            # penalties...) cannot leak in: the request's parameters are the whole truth.
            # Greedy gets transformers' neutral defaults, which it does not warn about.
            "temperature": params.temperature if sample else 1.0,
            "top_p": params.top_p if sample else 1.0,
            "top_k": (params.top_k or 0) if sample else 50,
            "repetition_penalty": params.repetition_penalty or 1.0,
            "num_return_sequences": per_prompt,
            "pad_token_id": self.eos_ids[0],
            "eos_token_id": self.eos_ids,
            "return_dict_in_generate": True,
            "output_logits": params.logprobs is not None,
        }
        if params.stop:
            options.update(stop_strings=list(params.stop), tokenizer=self.tokenizer)
        if sample and params.seed is not None:
            torch.manual_seed(params.seed)
        start = time.perf_counter()
        from transformers import StoppingCriteriaList

        counter = progress_counter(len(prompts) * per_prompt, self.eos_ids, self.progress_every_s)
        with torch.inference_mode():
            out = self.lm.generate(
                input_ids=input_ids,
                attention_mask=attention,
                stopping_criteria=StoppingCriteriaList([counter]),
                **options,
            )
        latency = (time.perf_counter() - start) / len(prompts)
        rows = out.sequences[:, input_ids.shape[1] :].tolist()
        answers = []
        for j, prompt in enumerate(prompts):
            samples = [self._finish(rows[j * per_prompt + k], params.stop) for k in range(per_prompt)]
            if not sample:
                samples *= params.n
            answer = GenerationResult(
                "",
                texts=[text for text, _, _ in samples],
                finish_reasons=[reason for _, _, reason in samples],
                prompt_tokens=len(prompt),
                completion_tokens=sum(count for _, count, _ in samples),
                latency_s=latency,
            )
            if params.logprobs is not None:
                answer.top_logprobs = self._top_logprobs(
                    out.logits, j * per_prompt, rows[j * per_prompt], samples[0][1], params.logprobs
                )
            answers.append(answer)
        return answers

    def _finish(self, row: list[int], stop: Sequence[str]) -> tuple[str, int, str]:
        """``(text, tokens generated, finish reason)`` of one generated row (padded with EOS)."""
        end = next((k for k, token in enumerate(row) if token in self.eos_ids), None)
        body = row if end is None else row[:end]
        text, stopped = truncate_at_stop(self.tokenizer.decode(body, skip_special_tokens=True), stop)
        if stopped:
            return text, len(body), "stop"
        if end is not None:
            return text, end + 1, "stop"
        return text, len(row), "length"

    def _top_logprobs(
        self, logits: Sequence[Any], row: int, tokens: list[int], steps: int, k: int
    ) -> list[dict[str, float]]:
        """Top ``k`` log-probabilities (raw model distribution) plus the chosen token, per step."""
        import torch

        if steps == 0:
            return []
        logprobs = torch.log_softmax(torch.stack([step[row] for step in logits[:steps]]).float(), dim=-1)
        values, ids = logprobs.topk(k, dim=-1) if k > 0 else (logprobs[:, :0], logprobs[:, :0].long())
        table = []
        for t in range(steps):
            entry = {self.tokenizer.decode([i]): v for i, v in zip(ids[t].tolist(), values[t].tolist(), strict=True)}
            entry.setdefault(self.tokenizer.decode([tokens[t]]), float(logprobs[t, tokens[t]]))
            table.append(entry)
        return table

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        """Sum of log-probabilities of each continuation's tokens given the prompt, in batches."""
        errors: dict[int, str] = {}
        pairs: list[tuple[int, int, list[int], int]] = []
        for index, request in enumerate(requests):
            try:
                for which, continuation in enumerate(request.continuations):
                    ids, n = scoring_ids(self.tokenizer, request.prompt, continuation)
                    if n >= self.max_length:
                        raise PromptError(f"continuation {which} alone exceeds the context ({self.max_length})")
                    pairs.append((index, which, ids[-self.max_length :], n))
            except PromptError as exc:
                errors[index] = str(exc)
        pairs = [pair for pair in pairs if pair[0] not in errors]
        pairs.sort(key=lambda pair: -len(pair[2]))
        scores: dict[tuple[int, int], float] = {}
        for chunk in chunked(pairs, self.batch_size):
            try:
                sums = self._score_batch([ids for _, _, ids, _ in chunk], [n for _, _, _, n in chunk])
            except _BATCH_ERRORS as exc:
                for index, *_ in chunk:
                    errors.setdefault(index, f"{type(exc).__name__}: {exc}")
                continue
            for (index, which, _, _), total in zip(chunk, sums, strict=True):
                scores[index, which] = total
        counts = {(index, which): n for index, which, _, n in pairs}
        results = []
        for index, request in enumerate(requests):
            if index in errors:
                results.append(LoglikelihoodResult(request.id, error=errors[index]))
                continue
            keys = [(index, which) for which in range(len(request.continuations))]
            results.append(
                LoglikelihoodResult(
                    request.id,
                    logprobs=[scores[key] for key in keys],
                    token_counts=[counts[key] for key in keys],
                )
            )
        return results

    def _score_batch(self, sequences: list[list[int]], tails: list[int]) -> list[float]:
        """Summed log-probability of the last ``tails[i]`` tokens of each sequence."""
        import torch

        input_ids, attention = self._left_pad(sequences)
        keep = max(tails) + 1
        # Left padding: every continuation ends at the last column, so only the last
        # ``keep`` positions' logits are needed (a full-vocabulary row per position is big).
        positions = (attention.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode():
            logits = self.lm(
                input_ids=input_ids, attention_mask=attention, position_ids=positions, logits_to_keep=keep
            ).logits
        logprobs = torch.log_softmax(logits[:, :-1].float(), dim=-1)
        targets = input_ids[:, -keep + 1 :] if keep > 1 else input_ids[:, :0]
        picked = logprobs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        return [float(picked[row, picked.shape[1] - n :].sum()) if n else 0.0 for row, n in enumerate(tails)]

    def _left_pad(self, sequences: list[list[int]]) -> tuple[Any, Any]:
        import torch

        width = max(len(ids) for ids in sequences)
        pad = self.eos_ids[0]
        ids = [[pad] * (width - len(s)) + s for s in sequences]
        mask = [[0] * (width - len(s)) + [1] * len(s) for s in sequences]
        return (
            torch.tensor(ids, dtype=torch.long, device=self.device),
            torch.tensor(mask, dtype=torch.long, device=self.device),
        )


def _out_of_memory(exc: BaseException) -> bool:
    """``exc`` is torch running out of (GPU) memory."""
    return type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower()


def _free_cache() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _context_length(lm: Any, tokenizer: Any) -> int:
    configured = getattr(lm.config, "max_position_embeddings", None)
    if isinstance(configured, int) and configured > 0:
        return configured
    limit = getattr(tokenizer, "model_max_length", 0)
    return limit if 0 < limit < 10**7 else 2048


def _eos_ids(lm: Any, tokenizer: Any) -> list[int]:
    """The ids that end generation: the generation config's (Qwen chat has two), else the tokenizer's."""
    configured = getattr(lm.generation_config, "eos_token_id", None)
    listed = configured if isinstance(configured, list) else [configured]
    ids = [int(i) for i in listed if i is not None]
    if not ids and tokenizer.eos_token_id is not None:
        ids = [int(tokenizer.eos_token_id)]
    if not ids:
        raise ValueError("the model defines no end-of-sequence token")
    return ids
