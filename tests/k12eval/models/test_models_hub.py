"""Pulls from the Hugging Face hub: a stand-in hub when it works, the real library when it is offline."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from k12eval.models import installed, pull, resolve_model
from kg.errors import InputError


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """A huggingface_hub whose snapshot_download writes two files (no network in tests)."""
    calls: list[tuple[str, str]] = []

    def snapshot_download(repo_id: str, local_dir: str, revision: str | None = None) -> str:
        calls.append((repo_id, local_dir))
        folder = Path(local_dir)
        (folder / ".cache" / "huggingface").mkdir(parents=True)
        (folder / ".cache" / "huggingface" / "lock").write_text("bookkeeping")
        (folder / "config.json").write_text('{"model_type": "bert"}')
        (folder / "model.safetensors").write_bytes(b"\x00" * 64)
        return local_dir

    module = types.ModuleType("huggingface_hub")
    module.snapshot_download = snapshot_download  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "huggingface_hub", module)
    return calls


def test_hub_pull_of_a_catalogue_name_uses_its_hub_id(home: Path, fake_hub: list[tuple[str, str]]) -> None:
    result = pull("all-MiniLM-L6-v2")
    assert fake_hub[0][0] == "sentence-transformers/all-MiniLM-L6-v2"
    assert result.path == home / "models" / "all-MiniLM-L6-v2"
    assert result.manifest.source == "hub" and result.manifest.format == "hub-snapshot"
    assert sorted(f.path for f in result.manifest.files) == ["config.json", "model.safetensors"]
    assert pull("sentence-transformers/all-MiniLM-L6-v2").already_installed
    assert len(fake_hub) == 1


def test_hub_pull_of_any_hub_id_gets_a_folder_and_resolves(home: Path, fake_hub: list[tuple[str, str]]) -> None:
    result = pull("some-org/some-model")
    assert result.path == home / "models" / "some-org--some-model"
    assert [m.hub_id for _, m in installed()] == ["some-org/some-model"]
    assert resolve_model("some-org/some-model") == str(result.path)


def test_a_bare_unknown_name_is_not_sent_to_the_hub(home: Path, fake_hub: list[tuple[str, str]]) -> None:
    with pytest.raises(InputError, match=r"not in the catalogue .* and not a hub id"):
        pull("gpt-17")
    assert fake_hub == []


def test_hub_failure_suggests_offline(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def unreachable(**kwargs: Any) -> str:
        raise OSError("Name or service not known\nmore detail")

    module = types.ModuleType("huggingface_hub")
    module.snapshot_download = unreachable  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "huggingface_hub", module)
    with pytest.raises(InputError) as caught:
        pull("qwen2.5-coder-0.5b-instruct")
    message = str(caught.value)
    assert "could not fetch Qwen/Qwen2.5-Coder-0.5B-Instruct" in message and "Name or service not known" in message
    assert message.endswith("use: k12eval models pull qwen2.5-coder-0.5b-instruct --offline")
    assert "more detail" not in message
    assert list((home / "models").iterdir()) == []


def test_real_hub_library_offline_fails_with_the_offline_hint(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("huggingface_hub")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InputError, match=r"could not fetch sentence-transformers/all-MiniLM-L6-v2 .*--offline$"):
        pull("sentence-transformers/all-MiniLM-L6-v2")
