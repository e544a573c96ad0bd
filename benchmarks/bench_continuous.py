"""Tokens per second of the default CPU path (continuous batching) against plain ``generate``, in one run.

    python benchmarks/bench_continuous.py                                   # random Qwen2.5-0.5B shape
    python benchmarks/bench_continuous.py --model qwen2.5-coder-0.5b-instruct --max-tokens 256   # real CoT

Three ways to answer the same greedy requests take turns, round by round, so a busy machine
slows all of them alike:

- **default**: what ``k12eval run`` does on a CPU: the transformers backend with continuous
  batching, its batch chosen by the same measurement as ``--batch-size auto``
  (:func:`runners.batch_plan.backend_batch`), and the loop guard on;
- **plain b1**: ``model.generate`` one prompt at a time (the backend's static path at batch 1, what
  ``auto`` was on a CPU before: every answer on disk as it finished);
- **plain bN**: ``model.generate`` on batches of N with left padding, for each N of ``--batches``;
  the best of them is the ratio's reference. A batch ends when its longest answer does; tokens
  counted are the answers' own (an answer's end-of-sequence included, padding after it not).

With the random model (default) every answer runs to ``--max-tokens`` unless the guard stops it,
so the comparison is raw decoding speed; with ``--model`` (real chain-of-thought prompts from the
bundled sample, in Chinese) answers end at different lengths, which is where continuous
batching gains over a static batch.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_generation import SHAPES, measure, model_dir, requests  # noqa: E402
from runners.backends.base import GenerationRequest, SamplingParams  # noqa: E402
from runners.loop_guard import LOOP_WINDOW  # noqa: E402


def sample_requests(count: int, max_tokens: int, is_chat: bool) -> list[GenerationRequest]:
    """Zero-shot-CoT requests for the first ``count`` questions of the bundled sample, as ``k12eval run`` words them."""
    from kg.importers import load_questions
    from runners.answering import build_prompt
    from runners.options import RunOptions
    from runners.protocol import with_protocol_defaults

    sample = ROOT / "data" / "sample"
    options = with_protocol_defaults(RunOptions(data=sample, model="m", out=Path("o"), mode="zero-shot-cot"))
    questions = load_questions(sample).questions[:count]
    params = SamplingParams(temperature=0.0, max_tokens=max_tokens)
    return [GenerationRequest(q.id, build_prompt(q, options, None, None, is_chat)[1], params) for q in questions]


def _timed(backend: Any, batch: list[GenerationRequest]) -> tuple[float, int]:
    """``(seconds, tokens generated)`` of one ``generate`` over ``batch`` (bench_generation's measurement)."""
    measured = measure(backend, batch)
    return measured["seconds"], measured["tokens"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="qwen2.5-0.5b", help="random model's shape")
    parser.add_argument("--model", default=None, help="a catalogue name or folder instead of the random model")
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--single", type=int, default=4, help="prompts of the batch-1 measurement (it is slow)")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--batches", default="8,16", help="plain generate batch sizes to try")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from runners.backends.transformers import TransformersBackend
    from runners.batch_plan import backend_batch

    if args.model:
        from k12eval.models import backend_model

        folder = Path(backend_model(args.model, "transformers"))
    else:
        folder = model_dir(args.shape, None)
    default = TransformersBackend(str(folder))
    plain = TransformersBackend(str(folder), continuous=False)
    plain.lm = default.lm  # one model in memory: both paths read the same weights
    if args.model:
        batch = sample_requests(args.prompts, args.max_tokens, default.is_chat)
    else:
        batch = requests(args.prompts, args.max_tokens)
    guarded = [replace(r, params=replace(r.params, loop_guard=LOOP_WINDOW)) for r in batch]
    probe_start = time.perf_counter()
    size, record = backend_batch("auto", default, False, len(batch), lambda: 0)
    probe_s = time.perf_counter() - probe_start
    sizes = [int(n) for n in args.batches.split(",")]
    print(f"model: {folder} ({sum(p.numel() for p in default.lm.parameters()) / 1e6:.0f}M parameters, float32)")
    print(
        f"workload: {len(batch)} prompts (batch 1: the first {args.single}), greedy, max_tokens {args.max_tokens}; "
        f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at the start"
    )
    print(f"default path: batch {size} by the measurement ({probe_s:.1f} s): {record['tokens_per_s']} tokens/s")
    rates: dict[str, list[float]] = {"default": [], "plain b1": [], **{f"plain b{n}": [] for n in sizes}}
    for number in range(1, args.rounds + 1):
        seconds, tokens = _timed(default, guarded)
        rates["default"].append(tokens / seconds)
        line = [f"default {tokens / seconds:.2f} ({tokens} tokens, {seconds:.0f} s)"]
        plain.batch_size = 1
        seconds, tokens = _timed(plain, batch[: args.single])
        rates["plain b1"].append(tokens / seconds)
        line.append(f"plain b1 {tokens / seconds:.2f}")
        for n in sizes:
            plain.batch_size = n
            seconds, tokens = _timed(plain, batch)
            rates[f"plain b{n}"].append(tokens / seconds)
            line.append(f"plain b{n} {tokens / seconds:.2f} ({tokens} tokens, {seconds:.0f} s)")
        print(f"round {number}: " + "; ".join(line) + f"  [load {os.getloadavg()[0]:.1f}]", flush=True)
    median = {name: statistics.median(values) for name, values in rates.items()}
    best = max((f"plain b{n}" for n in sizes), key=median.__getitem__)
    print("median tokens/s: " + ", ".join(f"{name} {value:.2f}" for name, value in median.items()))
    print(
        f"default / plain b1 = {median['default'] / median['plain b1']:.2f}x; "
        f"default / best plain batch ({best}) = {median['default'] / median[best]:.2f}x"
    )


if __name__ == "__main__":
    main()
