"""The backend base class: one subclass per backend, each capability one batched method or a typed member.

Callers hand a backend the *whole* batch (vLLM wants it that way); a backend
never loses a request: every request gets a result, with ``error`` set when
the backend could not answer it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

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


ProtocolRole = Literal["local", "api", "generate"]
PROTOCOL_ROLES: tuple[ProtocolRole, ...] = ("local", "api", "generate")
"""How a bank's protocol may ask a backend (:attr:`Backend.protocol_role`)."""


class Backend:
    """What every backend (vllm, transformers, openai, replay, a plugin's) is: one subclass of this class.

    Its capabilities are typed class members with defaults here, declared by a subclass where it differs and
    checked when its class is loaded (:func:`check_backend_class`; a plugin's when its entry point loads).
    """

    name: str
    """The backend's name (``--backend``), in the run header."""
    model: str
    """The model it answers with, as the run names it."""
    is_chat: bool = False
    """Whether prompts go as chat messages through the model's chat template (else as one text). An instance
    learns it from its model; the class's value is what a dry run assumes when no model is loaded (``openai``:
    chat, the others: text)."""
    server_side_model: ClassVar[bool] = False
    """The model the user names is a name it passes on as written (a server's model name, a recorded file),
    never a model to find and load here; the model resolver asks it (:func:`runners.backends.server_side_model`)."""
    protocol_role: ClassVar[ProtocolRole] = "generate"
    """How a bank's protocol asks it: ``local``, a model run here, scored by probability where the protocol says so;
    ``api``, a model behind an API, asked as the protocol's ``api_strategy`` says; ``generate``: it only generates
    answers (:func:`runners.backends.protocol_role`, :mod:`runners.protocol`)."""
    unsupported_sampling: ClassVar[frozenset[str]] = frozenset()
    """:class:`SamplingParams` fields it cannot honour; a run that sets one is refused before any request
    (:mod:`runners.gen_kwargs`)."""

    def __init__(self, model: str, **options: Any) -> None:
        """``model`` as the run names it; a subclass takes its own options as keyword-only arguments (what
        ``-B KEY=VALUE`` sets, :func:`runners.backends.backend_options`)."""
        self.model = model

    def check(self) -> None:
        """Asked once by ``get_backend``, before any request: refuse a setting that would make every request
        fail (``OpenAIBackend`` probes its ``base_url``). Nothing to refuse by default."""

    # One optional method, found with getattr (runners.backends.streams):
    #   generate_stream(self, requests) -> Iterator[GenerationResult]: the answers of generate, each
    #     yielded as soon as it is finished (in the order they finish, each carrying its request's id),
    #     so that a run writes every answer at once (runners.backends.generation_stream). A backend
    #     that has it hands each answer over inside runners.stopping.shielded (TransformersBackend, vLLM).

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """Complete every request; results in request order."""
        raise NotImplementedError

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        """Log-probability of each continuation; backends that cannot (replay) set ``error``."""
        raise NotImplementedError

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` by the model's own tokenizer (for the few-shot budget)."""
        raise NotImplementedError


def check_backend_class(cls: object) -> str | None:
    """What is wrong with ``cls`` as a backend class (not a :class:`Backend` subclass, a capability of the
    wrong type or value, a batched method missing), or ``None`` when it is one."""
    if not isinstance(cls, type) or not issubclass(cls, Backend):
        return "is not a runners.backends.Backend subclass"
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        return "declares no name"
    for member in ("is_chat", "server_side_model"):
        if not isinstance(getattr(cls, member), bool):
            return f"{member} is {getattr(cls, member)!r}, not True or False"
    if cls.protocol_role not in PROTOCOL_ROLES:
        return f"protocol_role is {cls.protocol_role!r}, not one of {', '.join(PROTOCOL_ROLES)}"
    unknown = sorted(set(cls.unsupported_sampling) - {f.name for f in fields(SamplingParams)})
    if unknown:
        return f"unsupported_sampling names no sampling setting: {', '.join(unknown)}"
    missing = [m for m in ("generate", "loglikelihood", "count_tokens") if getattr(cls, m) is getattr(Backend, m)]
    return f"does not define {', '.join(missing)}" if missing else None
