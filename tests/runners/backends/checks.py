"""Helpers shared by the backend tests: request lists, a free port, and checks every engine must pass."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
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


SERVER_START_S = 900
"""How long vLLM's server may take to answer after its start: about 40 s alone, far more on a loaded machine
(its import took over 240 s on 2 cores shared by 8 jobs), so this only catches a server that never comes up."""


@contextmanager
def serve_vllm(model_dir: Path, name: str, log: Path, *options: str) -> Iterator[str]:
    """vLLM's own OpenAI-compatible server (this environment's vllm) on ``model_dir``, named ``name``, float32,
    on 127.0.0.1, with ``options`` (``--runner pooling``...); its ``/v1`` URL once ``/v1/models`` answers."""
    import httpx

    port = free_port()
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1"}
    command = [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(model_dir), "--served-model-name", name,
        "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32", *options,
    ]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"vLLM server exited ({process.returncode}):\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(base + "/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"vLLM server did not answer in {SERVER_START_S} s:\n{log.read_text()[-3000:]}")
            time.sleep(1)
        yield base + "/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


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
