"""Qwen2.5-Math-PRM-style process reward models through transformers or vLLM (torch / vllm imported lazily).

A model served by vLLM over HTTP is :mod:`reasoning_metrics.models.prm_server` (``openai``, the third backend).

Both adapters build the same token ids (the chat of :func:`~reasoning_metrics.models.prm_format.prm_messages`
through the model's own chat template) and read the positive label's probability at the separator
tokens with :func:`~reasoning_metrics.models.prm_format.positive_at_separators`:

* :class:`TransformersPRM`: ``AutoModel.from_pretrained(..., trust_remote_code=True)`` (the published
  checkpoints ship ``Qwen2ForProcessRewardModel`` as remote code), logits ``[batch, tokens, 2]``,
  softmax, as the model card's ``make_step_rewards`` does;
* :class:`VLLMPRM`: ``vllm.LLM(..., runner="pooling")`` and ``encode(..., pooling_task="token_classify")``;
  vLLM has ``Qwen2ForProcessRewardModel`` built in, with ``STEP`` pooling (softmax over the two labels)
  at ``step_tag_id``, which is set here to the tokenizer's separator (vLLM's default is 151651).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from reasoning_metrics.models._torch import model_path, pick_device
from reasoning_metrics.models.prm_format import PRM_SEPARATOR, positive_at_separators, prm_messages

if TYPE_CHECKING:
    from reasoning_metrics.models.prm_server import ServedPRM

PRM_SERVER = "openai"
"""The backend of a model vLLM serves over HTTP (:class:`~reasoning_metrics.models.prm_server.ServedPRM`), named
as the judge's served backend is (``--judge-backend openai``)."""
PRM_BACKENDS = ("transformers", "vllm", PRM_SERVER)


def separator_id(tokenizer: Any) -> int:
    """The id of the step separator, which must be one token of the tokenizer's vocabulary."""
    ids = tokenizer.encode(PRM_SEPARATOR, add_special_tokens=False)
    if len(ids) != 1:
        raise ValueError(f"the tokenizer does not have {PRM_SEPARATOR} as one token: not a Qwen2.5-Math-PRM tokenizer")
    return int(ids[0])


def prm_token_ids(tokenizer: Any, problem: str, steps: Sequence[str]) -> list[int]:
    """The model card's input: the chat through the tokenizer's template, then encoded as text."""
    text = tokenizer.apply_chat_template(prm_messages(problem, steps), tokenize=False, add_generation_prompt=False)
    return list(tokenizer.encode(text, add_special_tokens=False))


class TransformersPRM:
    """A process reward model run by transformers, a batch of solutions at a time."""

    def __init__(
        self,
        model: str,
        *,
        device: str | None = None,
        dtype: str = "auto",
        batch_size: int = 4,
        max_length: int | None = None,
    ) -> None:
        """Load ``model`` (folder or hub id) with its remote code; ``dtype`` auto is float32 on a CPU.

        ``max_length``: the longest input scored, by default the model's ``max_position_embeddings``
        (4096 for Qwen2.5-Math-PRM-7B); a longer solution is not scored (``None``).
        """
        import torch
        import transformers

        path = model_path(model)
        self.name = f"prm:transformers:{model}"
        self.device = pick_device(device)
        self.batch_size = batch_size
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(path, trust_remote_code=True)
        torch_dtype = torch.float32 if dtype == "auto" and self.device == "cpu" else dtype
        if isinstance(torch_dtype, str) and torch_dtype != "auto":
            torch_dtype = getattr(torch, torch_dtype)
        self.model = (
            transformers.AutoModel.from_pretrained(path, trust_remote_code=True, dtype=torch_dtype)
            .eval()
            .to(self.device)
        )
        self.separator = separator_id(self.tokenizer)
        positions = getattr(self.model.config, "max_position_embeddings", None)
        self.max_length = max_length or (positions if isinstance(positions, int) and positions > 0 else 4096)
        pad = self.tokenizer.pad_token_id
        self.pad_id = int(pad if pad is not None else self.tokenizer.eos_token_id or 0)

    def step_probabilities(self, solutions: Sequence[tuple[str, Sequence[str]]]) -> list[list[float] | None]:
        """P(correct) per step of each solution (``None``: longer than ``max_length`` tokens)."""
        encoded = [prm_token_ids(self.tokenizer, problem, steps) for problem, steps in solutions]
        out: list[list[float] | None] = [None] * len(solutions)
        fits = [k for k, ids in enumerate(encoded) if len(ids) <= self.max_length]
        fits.sort(key=lambda k: len(encoded[k]))  # similar lengths together: less padding
        for start in range(0, len(fits), self.batch_size):
            chunk = fits[start : start + self.batch_size]
            positives = self._positive([encoded[k] for k in chunk])
            for k, positive in zip(chunk, positives, strict=True):
                out[k] = positive_at_separators(encoded[k], positive, self.separator, len(solutions[k][1]))
        return out

    def _positive(self, batch: list[list[int]]) -> list[list[float]]:
        """The positive label's probability at every token of each (right-padded) input."""
        import torch

        longest = max(len(ids) for ids in batch)
        ids = torch.full((len(batch), longest), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(batch), longest), dtype=torch.long)
        for row, tokens in enumerate(batch):
            ids[row, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)
            mask[row, : len(tokens)] = 1
        with torch.no_grad():
            output = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device))
        logits = output[0] if isinstance(output, tuple) else getattr(output, "logits", output[0])
        probabilities = torch.softmax(logits.float(), dim=-1)[..., 1].cpu()
        return [probabilities[row, : len(tokens)].tolist() for row, tokens in enumerate(batch)]


class VLLMPRM:
    """A process reward model served in-process by vLLM's pooling runner."""

    def __init__(
        self,
        model: str,
        *,
        dtype: str = "auto",
        max_model_len: int | None = None,
        gpu_memory_utilization: float = 0.9,
        kv_cache_gib: float = 1.0,
        engine_args: dict[str, Any] | None = None,
    ) -> None:
        """Start the engine on ``model`` (``kv_cache_gib`` sets ``VLLM_CPU_KVCACHE_SPACE`` for the CPU build)."""
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", f"{kv_cache_gib:g}")
        from vllm import LLM

        self.name = f"prm:vllm:{model}"
        self.llm = LLM(
            model=model_path(model),
            runner="pooling",
            trust_remote_code=True,
            dtype=dtype,
            max_model_len=max_model_len,
            gpu_memory_utilization=gpu_memory_utilization,
            **(engine_args or {}),
        )
        self.tokenizer = self.llm.get_tokenizer()
        self.separator = separator_id(self.tokenizer)
        self.max_length = int(self.llm.llm_engine.model_config.max_model_len)

    def step_probabilities(self, solutions: Sequence[tuple[str, Sequence[str]]]) -> list[list[float] | None]:
        """P(correct) per step of each solution, all solutions in one ``encode`` call."""
        from vllm import PoolingParams

        encoded = [prm_token_ids(self.tokenizer, problem, steps) for problem, steps in solutions]
        fits = [k for k, ids in enumerate(encoded) if len(ids) <= self.max_length]
        # vLLM pools at token 151651 (Qwen2.5's <extra_0>) unless told: name this tokenizer's separator.
        params = PoolingParams(step_tag_id=self.separator)
        outputs = self.llm.encode(
            [{"prompt_token_ids": encoded[k]} for k in fits],
            [params] * len(fits),
            pooling_task="token_classify",
            use_tqdm=False,
        )
        out: list[list[float] | None] = [None] * len(solutions)
        for k, output in zip(fits, outputs, strict=True):
            data = output.outputs.data  # [tokens or separators, 2], already softmaxed
            positive = [float(row[1]) for row in data.tolist()]
            out[k] = positive_at_separators(encoded[k], positive, self.separator, len(solutions[k][1]))
        return out


def load_prm(model: str, backend: str = "transformers", **options: Any) -> TransformersPRM | VLLMPRM | ServedPRM:
    """The process reward model ``model`` on ``backend`` (:data:`PRM_BACKENDS`); for ``openai``, ``model`` is
    the name a vLLM server knows it by (``options`` take its ``base_url``)."""
    if backend == PRM_SERVER:
        from reasoning_metrics.models.prm_server import ServedPRM

        return ServedPRM(model, **options)
    if backend == "transformers":
        return TransformersPRM(model, **options)
    if backend == "vllm":
        return VLLMPRM(model, **options)
    raise ValueError(f"no PRM backend {backend!r}; choose one of {', '.join(PRM_BACKENDS)}")
