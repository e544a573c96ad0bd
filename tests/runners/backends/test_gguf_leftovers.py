"""A GGUF conversion killed midway leaves nothing for ever (#workloss item 3b).

Before: ``.NAME-hf.partial-PID@HOST`` (the dequantized model, a model's size) of a conversion killed midway stayed
beside the GGUF file for ever. The kill is simulated by a folder named with the id of a process that has ended;
the conversion itself is replaced by one writing a small file (the real one is tested on a real model in
test_backend_gguf.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kg.errors import InputError
from runners.backends import gguf
from tests._leftovers import ended_owner


def test_a_killed_conversion_s_folder_is_removed_by_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "数学模型.gguf"
    source.write_bytes(b"GGUF" + b"\0" * 64)
    dead = ended_owner()
    killed = tmp_path / f".数学模型-hf.partial-{dead}"
    killed.mkdir()
    (killed / "model.safetensors").write_bytes(b"\0" * 4096)
    other = tmp_path / f".其他模型-hf.partial-{dead}"  # another file's conversion: not this one's to judge
    other.mkdir()

    monkeypatch.setattr(gguf, "dequantize_gguf", _fake_dequantize)
    target = gguf.convert_gguf(source)
    assert (target / "model.safetensors").read_bytes() == b"weights" and gguf.is_converted(target, source)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([source.name, target.name, other.name])


def _fake_dequantize(folder: Path, name: str, out: Path) -> None:
    out.mkdir()
    (out / "model.safetensors").write_bytes(b"weights")


def test_a_users_folder_named_like_the_conversion_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: ``数学模型-hf/`` beside ``数学模型.gguf`` (often the checkpoint the GGUF file was made from) was deleted
    to make room for the conversion."""
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    source = tmp_path / "数学模型.gguf"
    source.write_bytes(b"GGUF" + b"\0" * 64)
    mine = tmp_path / "数学模型-hf"
    mine.mkdir()
    (mine / "config.json").write_text('{"model_type": "qwen2"}', encoding="utf-8")
    monkeypatch.setattr(gguf, "dequantize_gguf", _fake_dequantize)

    target = gguf.convert_gguf(source)
    assert (mine / "config.json").read_text(encoding="utf-8") == '{"model_type": "qwen2"}'
    assert target.parent == tmp_path / "home" / "gguf" and gguf.is_converted(target, source)


def test_an_older_conversion_that_cannot_be_removed_is_never_taken_for_the_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: when the older conversion could not be removed (another user's files in a shared folder), the new one
    was dropped without a word and the older one, of another file, was loaded."""
    source = tmp_path / "数学模型.gguf"
    source.write_bytes(b"GGUF" + b"\0" * 64)
    older = tmp_path / "数学模型-hf"
    older.mkdir()
    (older / gguf.MARKER).write_text('{"source": "elsewhere"}', encoding="utf-8")
    real = shutil.rmtree

    def cannot_remove_older(path: Any, *args: Any, **kwargs: Any) -> None:
        if Path(path) != older:
            real(path, *args, **kwargs)

    monkeypatch.setattr(gguf, "dequantize_gguf", _fake_dequantize)
    monkeypatch.setattr(shutil, "rmtree", cannot_remove_older)
    with pytest.raises(InputError, match="holds an older conversion that could not be removed"):
        gguf.convert_gguf(source)
