"""Shared fixtures for the backend tests: one tiny random Qwen2 chat model per session."""

from __future__ import annotations

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
