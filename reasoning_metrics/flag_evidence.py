"""Which kinds of step flag point at errors: what ``k12eval meta-eval --flag-rates`` measured, as shipped.

``flag_evidence*.json`` beside this module (package data) are that command's JSON output, one file per
language's labelled sets, as ``--out`` wrote it (the command is recorded in it and in docs/detectors.md): per kind, its rate on first wrong steps and on right
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

from reasoning_metrics.scales import encoder_key

EVIDENCE_DIR = Path(__file__).parent
EVIDENCE_FILES = "flag_evidence*.json"
"""``flag_evidence.json`` (the Chinese sets); another language's output beside it, ``flag_evidence_en.json``."""
NLI_SCORES = ("source_consistency", "source_contradiction_max")
"""The page scores an NLI model gives: not measured when the command ran without one (``--nli none``)."""


@cache
def _measured(lang: str, folder: Path = EVIDENCE_DIR) -> dict[str, Any]:
    """The command's output whose labelled sets are of ``lang`` (its ``encoder`` names one per language)."""
    for path in sorted(folder.glob(EVIDENCE_FILES)):
        stored = json.loads(path.read_text(encoding="utf-8"))
        if lang in (stored.get("encoder") or {}):
            return dict(stored)
    return {}


def flag_evidence(lang: str | None, encoder: str | None) -> dict[str, dict[str, Any]]:
    """Kind -> what was measured for it on ``lang``'s labelled answers, for chains flagged with ``encoder``'s
    similarities (the loaded model's name): the kinds measured for that language and, among the similarity
    kinds, only those measured with that encoder. Empty when nothing was measured for ``lang``."""
    stored = _measured(lang) if lang else {}
    if not stored:
        return {}
    same_encoder = encoder is not None and encoder_key(stored["encoder"][lang]) == encoder_key(encoder)
    return {
        kind: {**row, "command": stored.get("command")}
        for kind, row in (stored.get("kinds") or {}).items()
        if row.get("source") != "similarity" or same_encoder
    }


def measured_separation(encoder: str | None, lang: str | None) -> dict[str, Any]:
    """Per page score, its separation of right from wrong chains (``meta-eval --flag-rates``' ``separation``)
    when it was measured on ``lang``'s labelled answers with ``encoder`` (the loaded model's name); else ``{}``."""
    stored = _measured(lang) if lang else {}
    measured = (stored.get("encoder") or {}).get(lang or "")
    if encoder is None or measured is None or encoder_key(measured) != encoder_key(encoder):
        return {}
    nli = {"separates": None, "why": "not measured: needs an NLI model", "why_zh": "未测量：需要 NLI 模型"}
    nli_scores = {} if stored.get("nli") not in (None, "none") else dict.fromkeys(NLI_SCORES, nli)
    return {**dict(stored.get("separation") or {}), **nli_scores}
