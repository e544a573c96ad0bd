"""The one scripted backend for unit tests: answers from a script, records what it was asked.

It stands in for a model behind any code that takes a :class:`runners.backends.Backend`, and
behind the real OpenAI-protocol test server (``runners.testing.openai_server``). The real
backends are tested on real models elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from runners.backends.base import (
    Backend,
    GenerationRequest,
    GenerationResult,
    LoglikelihoodRequest,
    LoglikelihoodResult,
)

Answer = str | Callable[[GenerationRequest], str | None]
"""A fixed reply, or a function of the request; ``None`` from it fails the request ("backend down")."""


def prompt_text(request: GenerationRequest | LoglikelihoodRequest) -> str:
    """The text of a request: the prompt, or the content of its last chat message."""
    prompt = request.prompt
    return prompt if isinstance(prompt, str) else str(prompt[-1]["content"])


class ScriptedBackend(Backend):
    """A backend whose replies come from ``answer`` and whose log-likelihoods come from ``score``."""

    name = "scripted"

    def __init__(
        self,
        answer: Answer = "",
        score: Callable[[LoglikelihoodRequest], list[float]] | None = None,
        *,
        model: str = "scripted",
        is_chat: bool = True,
        out_of_order: bool = False,
    ) -> None:
        """``out_of_order``: return results reversed, for callers that must match them by id."""
        self.answer = answer
        self.score = score
        self.model = model
        self.is_chat = is_chat
        self.out_of_order = out_of_order
        self.requests: list[GenerationRequest] = []
        self.batches: list[int] = []
        """The size of every batch asked for, generation and log-likelihood alike."""

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        self.requests.extend(requests)
        self.batches.append(len(requests))
        results = []
        for request in requests:
            reply = self.answer if isinstance(self.answer, str) else self.answer(request)
            if reply is None:
                results.append(GenerationResult(id=request.id, error="backend down"))
            else:
                results.append(GenerationResult(id=request.id, texts=[reply], finish_reasons=["stop"]))
        return results[::-1] if self.out_of_order else results

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        self.batches.append(len(requests))
        if self.score is None:
            return [LoglikelihoodResult(id=r.id, error="not supported") for r in requests]
        return [LoglikelihoodResult(id=r.id, logprobs=self.score(r)) for r in requests]

    def count_tokens(self, text: str) -> int:
        return len(text.split())
