"""The backend protocol: one class per backend, each capability one batched method.

Callers hand a backend the *whole* batch (vLLM wants it that way); a backend
never loses a request: every request gets a result, with ``error`` set when
the backend could not answer it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

ChatMessages = list[dict[str, str]]


@dataclass(frozen=True)
class SamplingParams:
    """Sampling options; backends map them onto their own names and ignore none silently."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 512
    n: int = 1
    seed: int | None = 0
    stop: tuple[str, ...] = ()
    logprobs: int | None = None
    """Number of top log-probabilities to return per generated token, if any."""
    top_k: int | None = None
    """Sample among the ``top_k`` most probable tokens (``--gen-kwargs``); ``None``: no such limit."""
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    repetition_penalty: float | None = None
    extra_body: str | None = None
    """A JSON object merged into an HTTP backend's request body (``--gen-kwargs extra_body``), kept as its
    text so that the parameters stay hashable."""
    loop_guard: int = 0
    """Stop a sequence whose last ``loop_guard`` tokens repeat one piece (:mod:`runners.loop_guard`); its
    finish reason is then ``loop``. 0: off. Local backends (transformers, vLLM) apply it; others ignore it."""


@dataclass(frozen=True)
class GenerationRequest:
    """One prompt to complete. ``prompt`` is plain text (base models) or chat messages (chat models)."""

    id: str
    prompt: str | ChatMessages
    params: SamplingParams = field(default_factory=SamplingParams)
    texts: tuple[str, ...] = ()
    """The question's own texts (its stem, then its options), for a backend that finds recorded
    answers by them (replay of another harness's files); empty when not known."""


@dataclass
class GenerationResult:
    """A backend's answer to one :class:`GenerationRequest`."""

    id: str
    texts: list[str] = field(default_factory=list)
    """One text per sample (``n`` of them); empty when ``error`` is set."""
    finish_reasons: list[str] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None
    error: str | None = None
    """Why no output came back (after retries), or ``None``."""
    top_logprobs: list[dict[str, float]] | None = None
    """Per generated token of the first sample, the top tokens and their log-probabilities."""
    reasoning: str | None = None
    """The first sample's chain of thought when the server returns it apart from the answer
    (``reasoning_content`` of vLLM's reasoning parsers and DeepSeek-R1-style APIs)."""
    harness: dict[str, Any] | None = None
    """Where a replayed answer came from, when another harness made it: see :class:`runners.records.RunRecord`."""


@dataclass(frozen=True)
class LoglikelihoodRequest:
    """Score each continuation as the text that follows ``prompt``."""

    id: str
    prompt: str | ChatMessages
    continuations: tuple[str, ...]
    texts: tuple[str, ...] = ()
    """As :attr:`GenerationRequest.texts`."""


@dataclass
class LoglikelihoodResult:
    """Sum of token log-probabilities of each continuation given the prompt."""

    id: str
    logprobs: list[float] = field(default_factory=list)
    """One per continuation, in request order."""
    token_counts: list[int] = field(default_factory=list)
    error: str | None = None
    harness: dict[str, Any] | None = None
    """As :attr:`GenerationResult.harness`."""


@runtime_checkable
class Backend(Protocol):
    """What every backend (vllm, transformers, openai, replay) implements."""

    name: str
    model: str
    is_chat: bool
    """Whether prompts go as chat messages through the model's chat template (else as one text)."""

    # Three optional members, read with getattr so that a plugin written before them still works:
    #   server_side_model: bool (class attribute, default False): the model the user names is a name the
    #     backend passes on as written (a server's model name, a recorded file), never a model to find
    #     and load here; the model resolver asks it (runners.backends.server_side_model).
    #   protocol_role: str (class attribute, default "generate"): how a bank's protocol asks it; "local", a
    #     model run here, scored by probability where the protocol says so; "api", a model behind an API,
    #     asked as the protocol's api_strategy says (runners.backends.protocol_role, runners.protocol).
    #   check(self) -> None: asked once by get_backend, before any request, to refuse a setting that
    #     would make every request fail (OpenAIBackend probes its base_url).
    #   unsupported_sampling: frozenset[str] (class attribute, default empty): SamplingParams fields the
    #     backend cannot honour; a run that sets one is refused before any request (runners.gen_kwargs).
    #   generate_stream(self, requests) -> Iterator[GenerationResult]: the answers of generate, each
    #     yielded as soon as it is finished (in the order they finish, each carrying its request's id),
    #     so that a run writes every answer at once (runners.backends.generation_stream). A backend
    #     that has it hands each answer over inside runners.stopping.shielded (TransformersBackend).

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """Complete every request; results in request order."""
        ...

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        """Log-probability of each continuation; backends that cannot (replay) set ``error``."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` by the model's own tokenizer (for the few-shot budget)."""
        ...
