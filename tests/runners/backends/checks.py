"""Helpers shared by the backend tests: request lists, a free port, and checks every engine must pass."""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from runners.backends.base import GenerationRequest, GenerationResult, LoglikelihoodResult, SamplingParams

GREEDY = SamplingParams(temperature=0.0, max_tokens=12)


def requests_for(prompts: Sequence[Any], params: SamplingParams = GREEDY) -> list[GenerationRequest]:
    """One request per prompt, ids ``r0``, ``r1``..."""
    return [GenerationRequest(f"r{i}", p, params) for i, p in enumerate(prompts)]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def assert_same_loglikelihoods(
    ours: Sequence[LoglikelihoodResult], reference: Sequence[LoglikelihoodResult], tolerance: float
) -> None:
    """Every result answered, with the reference's token counts and log-probabilities within ``tolerance``."""
    for mine, expected in zip(ours, reference, strict=True):
        assert mine.error is None
        assert mine.token_counts == expected.token_counts
        assert mine.logprobs == pytest.approx(expected.logprobs, abs=tolerance)


def seeded_samples(backend: Any, prompts: Sequence[Any], params: SamplingParams) -> list[GenerationResult]:
    """Sample twice with ``params`` and once with the next seed: the same seed repeats, another does not.

    Also checks that each request got ``params.n`` samples and that the first request's differ.
    """
    first = backend.generate(requests_for(prompts, params))
    again = backend.generate(requests_for(prompts, params))
    other = backend.generate(requests_for(prompts, replace(params, seed=(params.seed or 0) + 1)))
    assert [r.texts for r in first] == [r.texts for r in again]
    assert [r.texts for r in first] != [r.texts for r in other]
    assert all(len(r.texts) == params.n for r in first)
    assert len(set(first[0].texts)) > 1  # samples differ from one another
    return first
