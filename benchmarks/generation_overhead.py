"""k12eval's generation against plain ``model.generate``: the same model, prompts and batch, in one process.

The transformers backend's ``generate`` (prompt ids through the chat template, left padding,
the progress counter, decoding, stop strings, finish reasons) is timed against one bare
``lm.generate`` call over the very same padded ids (greedy, the same token budget), round after
round, alternating which goes first, so a busy machine slows both alike. The ratio is k12eval's
time over plain ``generate``'s (the median over rounds); the goal (#24 item 2) is at most 1.10.

    python benchmarks/generation_overhead.py                      # tiny random model on the CPU
    python benchmarks/generation_overhead.py --shape qwen2.5-0.5b --prompts 64 --max-tokens 256 --dtype bfloat16

``benchmarks/gpu_check.py`` runs :func:`compare` on the GPU with the Qwen2.5-0.5B shape.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_generation import SHAPES, model_dir, prompts  # noqa: E402
from runners.backends.base import GenerationRequest, SamplingParams  # noqa: E402


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def compare(backend: Any, count: int, max_tokens: int, rounds: int) -> dict[str, Any]:
    """Time ``backend.generate`` and plain ``generate`` on ``count`` prompts; return the figures.

    The backend's ``batch_size`` should hold all ``count`` prompts (one ``generate`` call each way).
    """
    import torch

    from runners.backends._prompts import prompt_ids

    params = SamplingParams(temperature=0.0, max_tokens=max_tokens)
    texts = prompts(count)
    chat = [[{"role": "user", "content": text}] for text in texts]
    requests = [
        GenerationRequest(f"p{i}", sent if backend.is_chat else texts[i], params) for i, sent in enumerate(chat)
    ]
    ids = [prompt_ids(backend.tokenizer, r.prompt) for r in requests]
    order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))  # the backend's own order: longest first
    input_ids, attention = backend._left_pad([ids[i] for i in order])

    def ours() -> tuple[float, int]:
        _sync(backend.device)
        start = time.perf_counter()
        results = backend.generate(requests)
        _sync(backend.device)
        seconds = time.perf_counter() - start
        failed = [r.error for r in results if r.error]
        if failed:
            raise SystemExit(f"k12eval: {len(failed)} requests failed, e.g. {failed[0]}")
        return seconds, sum(r.completion_tokens or 0 for r in results)

    def plain() -> tuple[float, int]:
        _sync(backend.device)
        start = time.perf_counter()
        with torch.inference_mode():
            out = backend.lm.generate(
                input_ids=input_ids,
                attention_mask=attention,
                max_new_tokens=max_tokens,
                do_sample=False,
                pad_token_id=backend.eos_ids[0],
                eos_token_id=backend.eos_ids,
            )
        _sync(backend.device)
        seconds = time.perf_counter() - start
        new = out[:, input_ids.shape[1] :]
        finished = torch.isin(new, torch.tensor(backend.eos_ids, device=new.device))
        # tokens up to and with each row's first EOS, as the backend counts them
        tokens = int(torch.where(finished.any(1), finished.int().argmax(1) + 1, new.shape[1]).sum())
        return seconds, tokens

    ours()  # warm-up of both, outside the timing
    plain()
    rows = []
    for number in range(rounds):
        first, second = (ours, plain) if number % 2 == 0 else (plain, ours)
        a, b = first(), second()
        k12, bare = (a, b) if number % 2 == 0 else (b, a)
        rows.append({"k12eval_s": k12[0], "plain_s": bare[0], "k12eval_tokens": k12[1], "plain_tokens": bare[1]})
    ratio = statistics.median(r["k12eval_s"] / r["plain_s"] for r in rows)
    return {
        "prompts": count,
        "max_tokens": max_tokens,
        "batch_size": backend.batch_size,
        "device": str(backend.device),
        "rounds": rows,
        "k12eval_tokens_per_s": statistics.median(r["k12eval_tokens"] / r["k12eval_s"] for r in rows),
        "plain_tokens_per_s": statistics.median(r["plain_tokens"] / r["plain_s"] for r in rows),
        "ratio": ratio,
    }


def print_comparison(figures: dict[str, Any]) -> None:
    """One line per round, then the median ratio."""
    print(f"{'round':>5}  {'k12eval s':>9}  {'plain s':>8}  {'ratio':>6}  tokens (k12eval / plain)")
    for number, row in enumerate(figures["rounds"], start=1):
        print(
            f"{number:>5}  {row['k12eval_s']:>9.3f}  {row['plain_s']:>8.3f}  {row['k12eval_s'] / row['plain_s']:>6.3f}"
            f"  {row['k12eval_tokens']} / {row['plain_tokens']}"
        )
    print(
        f"generation overhead: k12eval / plain generate = {figures['ratio']:.3f} (median of {len(figures['rounds'])}; "
        f"goal <= 1.10); {figures['k12eval_tokens_per_s']:.1f} vs {figures['plain_tokens_per_s']:.1f} tokens/s, "
        f"{figures['prompts']} prompts in one batch of {figures['batch_size']} on {figures['device']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="k12eval generation vs plain model.generate, same process")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="tiny")
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    from runners.backends.transformers import TransformersBackend

    folder = model_dir(args.shape, args.model_dir)
    backend = TransformersBackend(str(folder), dtype=args.dtype, device=args.device, batch_size=args.prompts)
    figures = compare(backend, args.prompts, args.max_tokens, args.rounds)
    figures.update(shape=args.shape, dtype=args.dtype, cpus=os.cpu_count())
    print_comparison(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
