"""Which output column of a classifier means what, read from its ``config.id2label``, never assumed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reasoning_metrics.protocols import NLI_COLUMNS

_NLI_PREFIXES = {"entailment": ("entail",), "neutral": ("neutral",), "contradiction": ("contradict",)}
_ACCEPTABLE = {"acceptable", "grammatical", "correct", "ok", "good"}
_UNACCEPTABLE = {"unacceptable", "not_acceptable", "ungrammatical", "incorrect", "bad"}

KNOWN_ACCEPTABLE_INDEX: dict[str, int] = {
    "cointegrated/roberta-large-cola-krishna2020": 0,
}
"""Models whose config names its labels ``LABEL_0/1`` only; index of 'acceptable' from the model card."""


def _names(id2label: Mapping[Any, str]) -> dict[int, str]:
    return {int(k): str(v).strip().lower() for k, v in id2label.items()}


def nli_columns(id2label: Mapping[Any, str]) -> list[int]:
    """Model column of entailment, neutral and contradiction (in :data:`NLI_COLUMNS` order).

    Raises ``ValueError`` when the labels do not name all three.
    """
    names = _names(id2label)
    columns = []
    for wanted in NLI_COLUMNS:
        hits = [i for i, name in names.items() if name.startswith(_NLI_PREFIXES[wanted])]
        if len(hits) != 1:
            raise ValueError(
                f"the model's labels {sorted(names.values())} do not name {wanted!r} exactly once; "
                "an NLI model needs entailment, neutral and contradiction labels"
            )
        columns.append(hits[0])
    return columns


def acceptable_column(id2label: Mapping[Any, str], model: str = "", acceptable_label: str | None = None) -> int:
    """Model column of 'grammatically acceptable'.

    Read from the label names; ``acceptable_label`` (a label name or index) decides
    when the names are generic (``LABEL_0``), as do :data:`KNOWN_ACCEPTABLE_INDEX` entries.
    """
    names = _names(id2label)
    if acceptable_label is not None:
        wanted = acceptable_label.strip().lower()
        for i, name in names.items():
            if wanted in (name, str(i)):
                return i
        raise ValueError(f"no label {acceptable_label!r} among the model's labels {sorted(names.values())}")
    good = [i for i, n in names.items() if n in _ACCEPTABLE]
    bad = [i for i, n in names.items() if n in _UNACCEPTABLE]
    if len(good) == 1:
        return good[0]
    if len(names) == 2 and len(bad) == 1:
        return next(i for i in names if i != bad[0])
    for known, index in KNOWN_ACCEPTABLE_INDEX.items():
        if model in (known, known.split("/")[-1]):
            return index
    raise ValueError(
        f"cannot tell which of the labels {sorted(names.values())} means 'acceptable'; pass acceptable_label"
    )
