"""Which kinds of step flag point at errors: what ``k12eval meta-eval --flag-rates`` measured, as shipped.

``flag_evidence.json`` (package data) is that command's JSON output on the Chinese labelled sets (the
command is recorded in it and in docs/detectors.md): per kind, its rate on first wrong steps and on right
steps on each half, and whether it points at errors by the rule of :mod:`reasoning_metrics.metaeval.flag_rates`
(read on the development half). The page shows a kind that does not as context, not as a warning.
A kind raised from similarities (``unsupported``...) was measured with one encoder's thresholds and holds
for that encoder only; a detector's kind holds for the language.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

EVIDENCE_FILE = Path(__file__).with_name("flag_evidence.json")


@cache
def _stored(path: Path = EVIDENCE_FILE) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def flag_evidence(lang: str | None, encoder: str | None) -> dict[str, dict[str, Any]]:
    """Kind -> what was measured for it on ``lang``'s labelled answers, for chains flagged with ``encoder``'s
    similarities (the loaded model's name): the kinds measured for that language and, among the similarity
    kinds, only those measured with that encoder. Empty when nothing was measured for ``lang``."""
    stored = _stored()
    measured = stored.get("encoder") or {}
    if lang is None or lang not in measured:
        return {}
    same_encoder = measured[lang] == encoder
    return {
        kind: {**row, "command": stored.get("command")}
        for kind, row in (stored.get("kinds") or {}).items()
        if row.get("source") != "similarity" or same_encoder
    }
