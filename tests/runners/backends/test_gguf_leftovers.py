"""A GGUF conversion killed midway leaves nothing for ever (#workloss item 3b).

Before: ``.NAME-hf.partial-PID@HOST`` (the dequantized model, a model's size) of a conversion killed midway stayed
beside the GGUF file for ever. The kill is simulated by a folder named with the id of a process that has ended;
the conversion itself is replaced by one writing a small file (the real one is tested on a real model in
test_backend_gguf.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

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

    def dequantize(folder: Path, name: str, out: Path) -> None:
        out.mkdir()
        (out / "model.safetensors").write_bytes(b"weights")

    monkeypatch.setattr(gguf, "dequantize_gguf", dequantize)
    target = gguf.convert_gguf(source)
    assert (target / "model.safetensors").read_bytes() == b"weights" and gguf.is_converted(target, source)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([source.name, target.name, other.name])
