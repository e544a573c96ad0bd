"""Shared fixtures for the backend tests: one tiny random Qwen2 chat model per session."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runners.testing.tiny_model import TinyConfig, build_tiny_qwen2

TEST_CONFIG = TinyConfig(initializer_range=0.3)
"""Peaked next-token distributions, so greedy choices are far from ties."""
SERVER_START_S = 900
"""How long vLLM's server may take to answer after its start: about 40 s alone, far more on a loaded machine
(its import took over 240 s on 2 cores shared by 8 jobs), so this only catches a server that never comes up."""


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
    import httpx

    from tests.runners.backends.checks import free_port

    port = free_port()
    log = tmp_path_factory.mktemp("vllm-server") / "server.log"
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1"}
    # 2048 tokens: the judge's Chinese prompt is several hundred tokens of the tiny BPE (256 refused it).
    command = [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(tiny_model_dir), "--served-model-name", "tiny",
        "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32", "--max-model-len", "2048",
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
