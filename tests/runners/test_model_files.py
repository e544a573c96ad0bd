"""run.json names the weights a local model run loaded: hub revision and sha256 of the weight files (#34 item 3)."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import pytest

from k12eval import api
from runners.model_files import CACHE_FILE, describe_model

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _hub_cache(root: Path, weights: bytes) -> Path:
    """A hub cache as huggingface_hub lays it out: ``models--org--name/{refs/main, snapshots/<commit>/...}``."""
    repo = root / "models--org--tiny"
    snapshot = repo / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)
    (snapshot / "config.json").write_text("{}")
    (snapshot / "model-00002-of-00002.safetensors").write_bytes(weights[::-1])
    (snapshot / "model-00001-of-00002.safetensors").write_bytes(weights)
    (snapshot / "tokenizer.json").write_text("{}")  # not a weight file
    return snapshot


def test_a_hub_id_is_described_from_the_hub_cache_with_its_commit_and_hashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    _hub_cache(tmp_path / "hub", b"weights" * 1000)
    found = describe_model("org/tiny")
    assert found is not None and found["revision"] == COMMIT
    first, second = hashlib.sha256(b"weights" * 1000).hexdigest(), hashlib.sha256(b"weights"[::-1] * 1000).hexdigest()
    assert found["files"] == {"model-00001-of-00002.safetensors": first, "model-00002-of-00002.safetensors": second}
    lines = f"model-00001-of-00002.safetensors {first}\nmodel-00002-of-00002.safetensors {second}\n"
    assert found["sha256"] == hashlib.sha256(lines.encode()).hexdigest()
    assert describe_model("org/absent") is None  # not cached: nothing downloaded, nothing claimed


def test_hashes_are_cached_by_path_size_and_time_and_a_changed_file_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    model = tmp_path / "model.gguf"
    model.write_bytes(b"q4" * 500)
    first = describe_model(str(model))
    assert first is not None and first["revision"] is None
    cache = json.loads((tmp_path / "home" / CACHE_FILE).read_text())
    (key,) = cache
    cache[key] = "0" * 64  # what the cache says is what is reported: it was not read again
    (tmp_path / "home" / CACHE_FILE).write_text(json.dumps(cache))
    assert describe_model(str(model))["files"] == {"model.gguf": "0" * 64}  # type: ignore[index]
    model.write_bytes(b"q8" * 600)  # another size: hashed again
    assert describe_model(str(model))["files"] == {"model.gguf": hashlib.sha256(b"q8" * 600).hexdigest()}  # type: ignore[index]


@pytest.mark.slow
@pytest.mark.real_model
def test_a_local_run_records_its_weights_and_a_resume_with_other_weights_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from runners.testing.tiny_model import TinyConfig, build_tiny_qwen2

    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    folder = build_tiny_qwen2(tmp_path / "tiny", TinyConfig())
    out = tmp_path / "run"
    api.run(api.sample_bank(), str(folder), out, limit=1, max_tokens=2)
    recorded = json.loads((out / "run.json").read_text(encoding="utf-8"))["weights"]
    (weights,) = folder.glob("*.safetensors")
    assert recorded["files"] == {weights.name: hashlib.sha256(weights.read_bytes()).hexdigest()}
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["config"]["model_sha"] == recorded["sha256"]
    build_tiny_qwen2(tmp_path / "tiny", TinyConfig(initializer_range=0.5))  # new weights under the same name
    with caplog.at_level(logging.WARNING, logger="runners.run"):
        api.run(api.sample_bank(), str(folder), out, limit=2, max_tokens=2)
    assert any("weights" in r.message and "changed" in r.message for r in caplog.records)
