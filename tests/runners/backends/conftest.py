"""Shared fixtures for the backend tests: one tiny random Qwen2 chat model per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runners.testing.tiny_model import TinyConfig, build_tiny_qwen2

TEST_CONFIG = TinyConfig(initializer_range=0.3)
"""Peaked next-token distributions, so greedy choices are far from ties."""


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random Qwen2ForCausalLM (hidden 64, 2 layers, 2 heads) with a trained tokenizer and chat template."""
    pytest.importorskip("transformers")
    return build_tiny_qwen2(tmp_path_factory.mktemp("tiny-qwen2"), TEST_CONFIG)


@pytest.fixture(scope="session")
def tiny_backend(tiny_model_dir: Path) -> Any:
    """The transformers backend on the tiny model, batch size 4 (so larger inputs span batches)."""
    from runners.backends.transformers import TransformersBackend

    return TransformersBackend(str(tiny_model_dir), batch_size=4)


@pytest.fixture(scope="module")
def vllm_server(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """vLLM's own OpenAI-compatible server (this environment's vllm) on the tiny model, named ``tiny``; its ``/v1`` URL."""
    from tests.runners.backends.checks import serve_vllm

    # 2048 tokens: the judge's Chinese prompt is several hundred tokens of the tiny BPE (256 refused it).
    log = tmp_path_factory.mktemp("vllm-server") / "server.log"
    with serve_vllm(tiny_model_dir, "tiny", log, "--max-model-len", "2048") as url:
        yield url
