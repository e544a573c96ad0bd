"""GGUF checkpoints: converted once to safetensors beside the file, then loaded like any folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from runners.backends.base import GenerationRequest, SamplingParams
from runners.backends.gguf import MARKER, converted_dir, is_converted, split_gguf

pytestmark = pytest.mark.real_model


@pytest.fixture(scope="module")
def tiny_gguf(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("gguf")
    from runners.testing.tiny_gguf import write_qwen2_gguf

    return write_qwen2_gguf(tiny_model_dir, tmp_path_factory.mktemp("gguf") / "tiny.gguf")


@pytest.mark.slow
def test_gguf_file_loads_with_the_original_weights(tiny_gguf: Path, tiny_backend: Any) -> None:
    import torch

    from runners.backends.transformers import TransformersBackend

    backend = TransformersBackend(str(tiny_gguf))
    ids = torch.tensor([tiny_backend.tokenizer("一次函数的图像 hello 3 + 4")["input_ids"]])
    with torch.inference_mode():
        assert torch.equal(backend.lm(input_ids=ids).logits, tiny_backend.lm(input_ids=ids).logits)
    assert backend.is_chat  # the chat template travelled through the GGUF metadata
    request = [GenerationRequest("q", [{"role": "user", "content": "你好"}], SamplingParams(max_tokens=8))]
    assert backend.generate(request)[0].texts == tiny_backend.generate(request)[0].texts


def test_conversion_happens_once_and_is_reused(tiny_gguf: Path) -> None:
    from runners.backends.transformers import TransformersBackend

    target = converted_dir(tiny_gguf)
    assert target == tiny_gguf.with_name("tiny-hf")
    TransformersBackend(str(tiny_gguf.parent), gguf_file=tiny_gguf.name)
    assert is_converted(target, tiny_gguf)
    weights = target / "model.safetensors"
    before = weights.stat().st_mtime_ns
    TransformersBackend(str(tiny_gguf))
    assert weights.stat().st_mtime_ns == before
    assert not [p for p in tiny_gguf.parent.iterdir() if ".partial-" in p.name]


def test_a_changed_gguf_file_is_converted_again(tiny_gguf: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.gguf"
    shutil.copy(tiny_gguf, copy)
    target = converted_dir(copy)
    target.mkdir()
    (target / MARKER).write_text('{"source": "elsewhere"}', encoding="utf-8")
    assert not is_converted(target, copy)


def test_read_only_folders_convert_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "ro" / "m.gguf"
    source.parent.mkdir()
    source.write_bytes(b"GGUF")
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    target = converted_dir(source)
    assert target.parent == tmp_path / "cache" / "k12eval" / "gguf"
    assert target.name.startswith("m-")


def test_split_gguf_accepts_a_file_or_a_folder_and_name(tiny_gguf: Path) -> None:
    assert split_gguf(str(tiny_gguf), None) == (str(tiny_gguf.parent), "tiny.gguf")
    assert split_gguf("Qwen/Qwen2.5-0.5B-Instruct-GGUF", "q4.gguf") == (
        "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
        "q4.gguf",
    )
    assert split_gguf("Qwen/Qwen2.5-0.5B", None) == ("Qwen/Qwen2.5-0.5B", None)


@pytest.mark.slow
def test_real_qwen_coder_gguf_answers(tmp_path: Path) -> None:
    """Qwen2.5-Coder-0.5B-Instruct q4_k_m (MODELS.md); set K12EVAL_QWEN_GGUF to the assembled file."""
    path = os.environ.get("K12EVAL_QWEN_GGUF")
    if not path or not Path(path).is_file():
        pytest.skip("set K12EVAL_QWEN_GGUF to the Qwen2.5-Coder-0.5B-Instruct GGUF file")
    from runners.backends.transformers import TransformersBackend

    backend = TransformersBackend(path)
    messages = [{"role": "user", "content": "1+1等于几？只回答数字。"}]
    [result] = backend.generate([GenerationRequest("q", messages, SamplingParams(max_tokens=8))])
    assert backend.is_chat and result.error is None
    assert "2" in result.texts[0]


def test_catalogue_conversion_writes_a_checked_copy_into_the_folder(tiny_gguf: Path, tmp_path: Path) -> None:
    """``k12eval models pull`` converts in place with the same code, and makes the files world-readable."""
    from k12eval.models._convert import gguf_to_safetensors

    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(tiny_gguf, folder / "chat.gguf")
    said: list[str] = []
    assert gguf_to_safetensors(folder, "chat.gguf", said.append) == "float32"
    assert said and "chat.gguf" in said[0]
    assert (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file()
    assert all(p.stat().st_mode & 0o777 == 0o644 for p in folder.iterdir())


def test_an_unreadable_gguf_file_is_an_input_error(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from kg.errors import InputError
    from runners.backends.gguf import dequantize_gguf

    (tmp_path / "bad.gguf").write_bytes(b"not a gguf file")
    with pytest.raises(InputError, match=r"could not load .*bad\.gguf"):
        dequantize_gguf(tmp_path, "bad.gguf", tmp_path / "out")


def test_a_read_only_gguf_converts_into_the_one_cache_that_models_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from k12eval.models import models_dir

    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("runners.backends.gguf.os.access", lambda path, mode: False)  # as site-packages for a user
    target = converted_dir(tmp_path / "site" / "model.gguf")
    assert target.parent == tmp_path / "home" / "gguf"
    assert target.parent.parent == models_dir().parent
