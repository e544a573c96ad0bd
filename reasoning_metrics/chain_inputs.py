"""From a chunk of prepared chains to each chain's input arrays, one batched model pass per role.

Every function takes all the chains of a chunk that use the same model, sends
their texts (or NLI pairs) to the model together through
:mod:`reasoning_metrics.batching`, and cuts the results back into per-chain
matrices (see :mod:`reasoning_metrics.functional` for their orientation).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from reasoning_metrics import batching
from reasoning_metrics import functional as F
from reasoning_metrics.cache import ArrayCache
from reasoning_metrics.reasons import reason

TOKEN_CHAINS_AT_ONCE = 32
"""Token embeddings are large: they are computed for this many chains at a time."""


@dataclass
class Prepared:
    """A chain split into steps, with the arrays computed for it so far."""

    id: str
    lang: Literal["zh", "en"]
    source: list[str]
    hypothesis: list[str]
    reference: list[str] | None
    """``None`` when no reference was given."""
    inputs: dict[str, Any] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    """Role or input -> why it could not be computed."""


def join_chain(steps: Sequence[str]) -> str:
    """A whole chain as the reference embeds it: steps joined by ``". "``."""
    return ". ".join(steps)


class _Index:
    """Distinct texts in order of first appearance, and their positions."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._pos: dict[str, int] = {}

    def add(self, texts: Iterable[str]) -> np.ndarray:
        out = []
        for text in texts:
            if text not in self._pos:
                self._pos[text] = len(self.texts)
                self.texts.append(text)
            out.append(self._pos[text])
        return np.asarray(out, dtype=np.int64)


def fill_similarities(
    model: Any, chains: Sequence[Prepared], wanted: set[str], batch_size: int, cache: ArrayCache | None
) -> None:
    """``sim_*`` and ``chain_*`` inputs from one embedding pass over all texts of the chains."""
    index = _Index()
    plans = []
    for c in chains:
        ref = c.reference or []
        plan = {"h": index.add(c.hypothesis), "s": index.add(c.source), "r": index.add(ref)}
        if "chain_hs" in wanted or "chain_hr" in wanted:
            plan["H"] = index.add([join_chain(c.hypothesis)])
            plan["S"] = index.add([join_chain(c.source)])
            plan["R"] = index.add([join_chain(ref)] if ref else [])
        plans.append(plan)
    emb = batching.encode(model, index.texts, batch_size, cache)
    for c, plan in zip(chains, plans, strict=True):
        h, s, r = emb[plan["h"]], emb[plan["s"]], emb[plan["r"]]
        c.inputs["sim_hs"] = F.cos_star(h, s)
        c.inputs["sim_hh"] = F.cos_star(h, h)
        if len(r):
            c.inputs["sim_hr"] = F.cos_star(h, r)
            c.inputs["sim_rs"] = F.cos_star(r, s)
        if "H" in plan:
            c.inputs["chain_hs"] = float(F.cos_star(emb[plan["H"]], emb[plan["S"]])[0, 0])
            if len(plan["R"]):
                c.inputs["chain_hr"] = float(F.cos_star(emb[plan["H"]], emb[plan["R"]])[0, 0])


def fill_token_alignments(
    model: Any, chains: Sequence[Prepared], wanted: set[str], batch_size: int, cache: ArrayCache | None
) -> None:
    """``token_align_hs`` (per hypothesis token) and ``token_align_hh`` (``[N, N]``), in small groups."""
    for start in range(0, len(chains), TOKEN_CHAINS_AT_ONCE):
        part = chains[start : start + TOKEN_CHAINS_AT_ONCE]
        index = _Index()
        plans = [(index.add(c.hypothesis), index.add(c.source)) for c in part]
        tokens = batching.token_embeddings(model, index.texts, batch_size)
        dim = next((t.shape[1] for t in tokens if t.ndim == 2), 0)
        for c, (h, s) in zip(part, plans, strict=True):
            h_tokens = _stack([tokens[i] for i in h], dim)
            s_tokens = _stack([tokens[i] for i in s], dim)
            # Steps or sentences without tokens (only special characters) are skipped, as in the reference.
            aligned = F.token_alignment(h_tokens, s_tokens) if len(h_tokens) and len(s_tokens) else np.zeros(0)
            c.inputs["token_align_hs"] = aligned
            c.inputs["token_align_hh"] = F.step_token_alignment(h_tokens, [len(tokens[i]) for i in h])


def _stack(arrays: list[np.ndarray], dim: int) -> np.ndarray:
    arrays = [a for a in arrays if len(a)]
    return np.concatenate(arrays) if arrays else np.zeros((0, dim), dtype=np.float32)


def fill_contradictions(
    model: Any, chains: Sequence[Prepared], wanted: set[str], batch_size: int, cache: ArrayCache | None
) -> None:
    """``contra_hs`` (each source sentence as premise of each step), ``contra_hh`` (each step pair)."""
    pairs: list[tuple[str, str]] = []
    plans = []
    for c in chains:
        plan = {}
        for name, premises in (("contra_hs", c.source), ("contra_hh", c.hypothesis)):
            if name in wanted:
                plan[name] = (len(pairs), len(premises))
                pairs.extend((p, h) for h in c.hypothesis for p in premises)
        plans.append(plan)
    contradiction = batching.nli(model, pairs, batch_size, cache)[:, 2].astype(np.float64)
    for c, plan in zip(chains, plans, strict=True):
        for name, (start, width) in plan.items():
            matrix = contradiction[start : start + len(c.hypothesis) * width].reshape(len(c.hypothesis), width)
            unread = int(np.isnan(matrix).sum())
            if unread:
                c.missing[name] = reason("nli_unanswered", unread, matrix.size)
            else:
                c.inputs[name] = matrix


def fill_perplexities(
    model: Any, chains: Sequence[Prepared], wanted: set[str], batch_size: int, cache: ArrayCache | None
) -> None:
    """``ppl_steps`` (``[N, 2]``) and ``ppl_chain`` (steps joined by spaces, as the reference does)."""
    index = _Index()
    plans = [(index.add(c.hypothesis), index.add([" ".join(c.hypothesis)])) for c in chains]
    ppl = batching.perplexities(model, index.texts, batch_size, cache).astype(np.float64)
    for c, (steps, whole) in zip(chains, plans, strict=True):
        for name, rows in (("ppl_steps", ppl[steps]), ("ppl_chain", ppl[whole])):
            if not np.isfinite(rows[:, 0]).all() or (rows[:, 1] <= 0).any():
                c.missing[name] = reason("lm_no_tokens")
            else:
                c.inputs[name] = rows if name == "ppl_steps" else float(rows[0, 0])


def fill_acceptability(
    model: Any, chains: Sequence[Prepared], wanted: set[str], batch_size: int, cache: ArrayCache | None
) -> None:
    """``grammar``: P(acceptable) per step."""
    index = _Index()
    plans = [index.add(c.hypothesis) for c in chains]
    probs = batching.acceptabilities(model, index.texts, batch_size, cache).astype(np.float64)
    for c, steps in zip(chains, plans, strict=True):
        c.inputs["grammar"] = probs[steps]


FILLERS = {
    "encoder": fill_similarities,
    "token_embedder": fill_token_alignments,
    "nli": fill_contradictions,
    "lm": fill_perplexities,
    "grammar": fill_acceptability,
}
"""Model role -> the function that computes its inputs for a group of chains."""
