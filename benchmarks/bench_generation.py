"""Generated tokens per second: the transformers backend vs the vLLM backend, measured in one run.

The same random model of a real architecture (default: Qwen2.5-0.5B's shape), the same
prompts, greedy decoding and the same token budget go through both backends. vLLM lives
in its own virtualenv (``scripts/setup_vllm_cpu.sh``), so this script starts itself a
second time with ``.venv-vllm/bin/python`` as a worker that keeps its engine loaded; the
two backends then take turns, round by round, so a busy machine slows both alike.

    python benchmarks/bench_generation.py                       # 0.5B shape, 16 prompts x 64 tokens
    python benchmarks/bench_generation.py --shape tiny --rounds 2   # a quick check of the plumbing
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from runners.backends.base import GenerationRequest, SamplingParams  # noqa: E402
from runners.testing.tiny_model import QWEN25_05B, TinyConfig, build_tiny_qwen2  # noqa: E402

SHAPES = {"qwen2.5-0.5b": QWEN25_05B, "tiny": TinyConfig()}
_SENTENCES = [
    "一次函数的图像是一条直线，斜率为k，截距为b。",
    "Question: a train travels 120 km in 2 hours. What is its average speed?",
    "下列说法正确的是哪一项？请说明理由并给出解题步骤。",
    "Water boils at 100 degrees Celsius at sea level; explain why it boils at a lower temperature on a mountain.",
    "中国的首都是北京，长江是中国最长的河流。",
    "Options: A. 1 B. 2 C. 3 D. 4. Let's think step by step.",
]


def prompts(count: int) -> list[str]:
    """``count`` different prompts of varied length (one to four sentences)."""
    return [" ".join(_SENTENCES[(i + k) % len(_SENTENCES)] for k in range(1 + i % 4)) + f" ({i})" for i in range(count)]


def requests(count: int, max_tokens: int) -> list[GenerationRequest]:
    """Greedy requests with the same token budget."""
    params = SamplingParams(temperature=0.0, max_tokens=max_tokens)
    return [GenerationRequest(f"p{i}", text, params) for i, text in enumerate(prompts(count))]


def measure(backend: Any, batch: list[GenerationRequest]) -> dict[str, Any]:
    """Time one ``generate`` over the whole batch."""
    start = time.perf_counter()
    results = backend.generate(batch)
    seconds = time.perf_counter() - start
    errors = [r.error for r in results if r.error]
    if errors:
        raise SystemExit(f"{backend.name}: {len(errors)} requests failed, e.g. {errors[0]}")
    tokens = sum(r.completion_tokens or 0 for r in results)
    prompt_tokens = [r.prompt_tokens or 0 for r in results]
    return {"seconds": seconds, "tokens": tokens, "prompt_tokens": [min(prompt_tokens), max(prompt_tokens)]}


def peak_rss_mb() -> float:
    """This process's resident high-water mark (``ru_maxrss`` is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def model_dir(shape: str, folder: Path | None) -> Path:
    """The random model's folder, built once and reused."""
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "k12eval" / "bench"
    target = folder or cache / f"{shape}-random"
    if not (target / "model.safetensors").is_file():
        print(f"building a random {shape} model in {target} ...", flush=True)
        build_tiny_qwen2(target, SHAPES[shape])
    return target


def serve_vllm(args: argparse.Namespace) -> None:
    """Worker mode (in the vLLM venv): load the engine, then answer one ``run`` line per round."""
    from runners.backends.vllm import VLLMBackend

    start = time.perf_counter()
    backend = VLLMBackend(str(args.model_dir), dtype=args.dtype, max_model_len=args.max_model_len)
    batch = requests(args.prompts, args.max_tokens)
    backend.generate(batch[:1])  # warm-up outside the timing
    print(json.dumps({"ready": True, "load_s": time.perf_counter() - start}), flush=True)
    for line in sys.stdin:
        if line.strip() != "run":
            break
        print(json.dumps({**measure(backend, batch), "peak_rss_mb": peak_rss_mb()}), flush=True)


def start_worker(args: argparse.Namespace, folder: Path) -> subprocess.Popen[str]:
    python = Path(args.vllm_python)
    if not python.is_file():
        raise SystemExit(f"{python} not found: run scripts/setup_vllm_cpu.sh first")
    command = [str(python), __file__, "--serve-vllm", "--model-dir", str(folder), "--dtype", args.dtype]
    command += ["--prompts", str(args.prompts), "--max-tokens", str(args.max_tokens)]
    command += ["--max-model-len", str(args.max_model_len)]
    env = {
        **os.environ,
        "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
        "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "2"),
        # vLLM on a CPU otherwise drops to one thread; transformers uses them all.
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", str(os.cpu_count() or 1)),
    }
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )


def worker_line(worker: subprocess.Popen[str]) -> dict[str, Any]:
    assert worker.stdout is not None
    while line := worker.stdout.readline():
        if line.startswith("{"):
            answer: dict[str, Any] = json.loads(line)
            return answer
    raise SystemExit(f"the vLLM worker stopped (exit code {worker.wait()}); run it by hand to see why")


def main() -> None:
    parser = argparse.ArgumentParser(description="transformers vs vLLM generation throughput")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="qwen2.5-0.5b")
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=16, help="transformers batch size")
    parser.add_argument("--dtype", default="float32", help="both backends")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-model-len", type=int, default=1024)
    parser.add_argument("--vllm-python", default=str(ROOT / ".venv-vllm" / "bin" / "python"))
    parser.add_argument("--serve-vllm", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_vllm:
        serve_vllm(args)
        return

    folder = model_dir(args.shape, args.model_dir)
    shape = SHAPES[args.shape]
    worker = start_worker(args, folder)
    from runners.backends.transformers import TransformersBackend

    start = time.perf_counter()
    hf = TransformersBackend(str(folder), dtype=args.dtype, batch_size=args.batch_size)
    batch = requests(args.prompts, args.max_tokens)
    hf.generate(batch[:1])
    hf_load = time.perf_counter() - start
    params = sum(p.numel() for p in hf.lm.parameters())
    ready = worker_line(worker)
    assert worker.stdin is not None

    print(
        f"model: random Qwen2ForCausalLM, {args.shape} shape (hidden {shape.hidden_size}, "
        f"{shape.num_hidden_layers} layers, {shape.num_attention_heads} heads / {shape.num_key_value_heads} KV, "
        f"intermediate {shape.intermediate_size}, vocab {shape.vocab_size}), {params / 1e6:.0f}M parameters, {args.dtype}"
    )
    print(
        f"workload: {args.prompts} prompts, greedy, max_tokens {args.max_tokens}; transformers batch size "
        f"{args.batch_size}; vLLM gets the whole batch; {os.cpu_count()} CPUs; load: transformers "
        f"{hf_load:.1f} s, vLLM {ready['load_s']:.1f} s (not timed below)"
    )
    print(f"{'round':>5}  {'transformers tok/s':>18}  {'vLLM tok/s':>10}  {'ratio':>6}")
    rates: dict[str, list[float]] = {"transformers": [], "vllm": []}
    vllm_peak = 0.0
    for round_number in range(1, args.rounds + 1):
        ours = measure(hf, batch)
        worker.stdin.write("run\n")
        worker.stdin.flush()
        theirs = worker_line(worker)
        vllm_peak = max(vllm_peak, theirs["peak_rss_mb"])
        rates["transformers"].append(ours["tokens"] / ours["seconds"])
        rates["vllm"].append(theirs["tokens"] / theirs["seconds"])
        print(
            f"{round_number:>5}  {rates['transformers'][-1]:>18.1f}  {rates['vllm'][-1]:>10.1f}  "
            f"{rates['vllm'][-1] / rates['transformers'][-1]:>6.2f}   "
            f"({ours['tokens']} vs {theirs['tokens']} tokens, {ours['seconds']:.1f} s vs {theirs['seconds']:.1f} s)",
            flush=True,
        )
    worker.stdin.write("quit\n")
    worker.stdin.flush()
    worker.wait(timeout=60)
    hf_rate, vllm_rate = statistics.median(rates["transformers"]), statistics.median(rates["vllm"])
    print(
        f"median: transformers {hf_rate:.1f} tok/s, vLLM {vllm_rate:.1f} tok/s, "
        f"vLLM / transformers = {vllm_rate / hf_rate:.2f}x"
    )
    print(
        f"peak RSS (whole process, model included): transformers {peak_rss_mb():.0f} MB, "
        f"vLLM worker {vllm_peak:.0f} MB (its KV cache: VLLM_CPU_KVCACHE_SPACE GiB)"
    )


if __name__ == "__main__":
    main()
