"""The device check the project owns (#24 item 4): real model shapes, random weights, built here from configs.

Nothing is downloaded: every model is initialised at random from its architecture's config and
saved to ``--work``; every tokenizer is trained here with ``tokenizers`` (a byte-level BPE with
ChatML for the Qwen shapes, a WordPiece that splits Chinese into characters, like
bert-base-chinese, for the BERT shapes). Models:

- chat: Qwen2.5-0.5B's shape (24 layers, 896 hidden, 14/2 heads, vocab 151,936), bfloat16 on a GPU;
- prm: the same shape as a Qwen2.5-Math-PRM-style reward model (a 2-label head on every token);
- encoders: a MiniLM-shaped (6 layers, 384) and a BERT-base-shaped (12 layers, 768) sentence encoder;
- nli: a BERT-base-shaped 3-label classifier (entailment, neutral, contradiction).

Sections, each timed, each printing its ratios; a section that fails is recorded with its error
and the next one runs. The JSON summary is rewritten after every section, so a call cut short
still brings back what was measured.

1. generation: k12eval's transformers ``generate`` vs plain ``model.generate`` on the same prompts
   and batch (:mod:`benchmarks.generation_overhead`); ``--batch-size auto``'s probe; a
   ``run --batch-size 16`` on 16 sample questions must make one ``generate`` call.
2. scoring: ROSCOE (the CK12 paper's five scores) on synthetic ProcessBench-like chains with the
   BERT-base encoder and NLI: chains/s on the device, on the CPU, the ratio; the device's half
   precision against float32 on the same chains, per metric (goal: within 1e-3); the MiniLM shape.
3. detectors: ``prm`` over GSM8K-like solutions and ``rollouts`` (k continuations per step prefix).

    python3 benchmarks/gpu_check.py --json $OUT/gpu.json             # on the lent GPU, ~5 minutes
    python benchmarks/gpu_check.py --device cpu --quick --json /tmp/gpu.json   # the plumbing, on a CPU
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import random
import shutil
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

NEEDED = ("numpy", "torch", "transformers", "sentence_transformers", "tokenizers", "pydantic", "networkx", "typer")


def _missing() -> list[str]:
    missing = []
    for name in NEEDED:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


# ---------------------------------------------------------------- models, built from configs

_ZH = "一二三四五六七八九十百千万元角分米厘克千克小时分钟秒加减乘除等于是的了和在有个这那为所以因此答案设方程解得求面积周长速度路程时间水果苹果梨学生老师班级比例分数小数"
_EN = [
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "with",
    "was",
    "on",
    "be",
    "by",
    "this",
    "are",
    "or",
    "from",
    "at",
    "which",
    "an",
    "we",
    "step",
    "so",
    "then",
    "total",
    "number",
    "each",
    "per",
    "cost",
    "price",
    "sum",
    "difference",
    "product",
    "quotient",
    "equation",
    "solve",
    "answer",
    "therefore",
]


def _corpus(rng: random.Random, lines: int = 400) -> list[str]:
    out = []
    for _ in range(lines):
        words = [rng.choice(_EN) for _ in range(rng.randint(5, 15))]
        chars = "".join(rng.choice(_ZH) for _ in range(rng.randint(5, 20)))
        out.append(" ".join(words) + f" {rng.randint(0, 999)} + {rng.randint(0, 99)} = {rng.randint(0, 999)}. " + chars)
    return out


def wordpiece_tokenizer(folder: Path, max_length: int = 512) -> Any:
    """A BERT WordPiece tokenizer trained here (Chinese split into characters, as bert-base-chinese)."""
    from runners.testing.tiny_bert import wordpiece_tokenizer as train

    return train(folder, _corpus(random.Random(0)), vocab_size=3000, max_length=max_length)


def _bert_config(fast: Any, layers: int, hidden: int, **extra: Any) -> Any:
    from transformers import BertConfig

    return BertConfig(
        vocab_size=21128,  # bert-base-chinese's; the trained tokenizer uses the first few thousand ids
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=hidden // 64,
        intermediate_size=4 * hidden,
        max_position_embeddings=512,
        pad_token_id=fast.pad_token_id,
        **extra,
    )


def build_encoder(folder: Path, layers: int, hidden: int) -> Path:
    """A sentence-transformers folder: a random BERT of this shape with mean pooling."""
    import torch
    from transformers import BertModel

    if (folder / "modules.json").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    fast = wordpiece_tokenizer(folder)
    BertModel(_bert_config(fast, layers, hidden)).eval().save_pretrained(folder)
    (folder / "1_Pooling").mkdir(exist_ok=True)
    pooling = {"word_embedding_dimension": hidden, "pooling_mode_mean_tokens": True}
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling), encoding="utf-8")
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    (folder / "modules.json").write_text(json.dumps(modules), encoding="utf-8")
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 256}), encoding="utf-8")
    return folder


def build_nli(folder: Path, layers: int = 12, hidden: int = 768) -> Path:
    """A random BERT-base-shaped 3-label NLI classifier."""
    import torch
    from transformers import BertForSequenceClassification

    if (folder / "config.json").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(1)
    fast = wordpiece_tokenizer(folder)
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = _bert_config(
        fast, layers, hidden, num_labels=3, id2label=labels, label2id={v: k for k, v in labels.items()}
    )
    BertForSequenceClassification(config).eval().save_pretrained(folder)
    return folder


def build_chat(folder: Path, quick: bool) -> Path:
    """Qwen2.5-0.5B's shape (``--quick``: the tests' tiny shape), random, saved in bfloat16 as the real one is."""
    from runners.testing.tiny_model import QWEN25_05B, TinyConfig, build_tiny_qwen2

    if not (folder / "config.json").is_file():
        build_tiny_qwen2(folder, TinyConfig(initializer_range=0.2) if quick else QWEN25_05B)
    return folder


def build_prm(folder: Path, quick: bool) -> Path:
    """A Qwen2.5-Math-PRM-style reward model: the chat shape with a 2-label head on every token (remote code)."""
    import importlib.util

    import torch
    from transformers import Qwen2Config

    from runners.testing.tiny_model import EOS, QWEN25_05B, TinyConfig, build_tokenizer
    from tests.reasoning_metrics.tiny_prm import MODELING

    if (folder / "config.json").is_file():
        return folder
    shape = TinyConfig(num_attention_heads=1, num_key_value_heads=1, hidden_size=32) if quick else QWEN25_05B
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(shape.vocab_size, shape.tokenizer_vocab)
    tokenizer.add_special_tokens({"additional_special_tokens": ["<extra_0>"]})
    tokenizer.save_pretrained(folder)
    eos = tokenizer.convert_tokens_to_ids(EOS)
    auto_map = {"AutoModel": "modeling_qwen2_rm.Qwen2ForProcessRewardModel"}
    fields: dict[str, Any] = dict(
        vocab_size=len(tokenizer),
        hidden_size=shape.hidden_size,
        intermediate_size=shape.intermediate_size,
        num_hidden_layers=shape.num_hidden_layers,
        num_attention_heads=shape.num_attention_heads,
        num_key_value_heads=shape.num_key_value_heads,
        max_position_embeddings=4096,
        num_labels=2,
        bos_token_id=eos,
        eos_token_id=eos,
        pad_token_id=eos,
        architectures=["Qwen2ForProcessRewardModel"],
        auto_map=auto_map,
    )
    config = Qwen2Config(**fields)
    (folder / "modeling_qwen2_rm.py").write_text(MODELING, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("gpu_check_modeling_qwen2_rm", folder / "modeling_qwen2_rm.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(2)
    module.Qwen2ForProcessRewardModel(config).to(torch.bfloat16).save_pretrained(folder)
    saved = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    saved.update(auto_map=auto_map, architectures=["Qwen2ForProcessRewardModel"])
    (folder / "config.json").write_text(json.dumps(saved, indent=2), encoding="utf-8")
    return folder


# ---------------------------------------------------------------- synthetic data


def processbench_like(count: int, seed: int = 0) -> list[Any]:
    """ProcessBench-like chains: a word problem and 5 to 8 steps of 20 to 45 words, every text different."""
    from reasoning_metrics.records import Chain

    rng = random.Random(seed)
    names = ["Janet", "Tom", "Maria", "Li Lei", "Han Meimei", "Ahmed", "Olga", "Ken"]
    things = ["apples", "duck eggs", "books", "tickets", "pencils", "marbles", "cupcakes", "stamps"]
    chains = []
    for i in range(count):
        name, thing = rng.choice(names), rng.choice(things)
        a, b, c = rng.randint(3, 90), rng.randint(2, 40), rng.randint(2, 9)
        problem = (
            f"{name} has {a} {thing} and buys {b} more every day for {c} days, then gives away a third of them "
            f"to friends and sells the rest at ${rng.randint(1, 9)} each. How much money does {name} make? ({i})"
        )
        steps = []
        total = a
        for k in range(rng.randint(5, 8)):
            x = rng.randint(1, 50)
            words = " ".join(rng.choice(_EN) for _ in range(rng.randint(12, 30)))
            steps.append(f"Step {k + 1}: {words}, so {total} + {x} = {total + x} {thing} after day {k + 1}.")
            total += x
        steps.append(f"The answer is {total}.")
        chains.append(Chain(id=f"pb{i}", source=problem, hypothesis=steps, lang="en"))
    return chains


def gsm8k_like(count: int, seed: int = 1, gold: bool = False) -> list[Any]:
    """GSM8K-like labelled solutions (every third one with a slip), with the gold answer in ``meta``."""
    from reasoning_metrics.metaeval.solution import from_first_error

    rng = random.Random(seed)
    out = []
    for i in range(count):
        a, b, c = rng.randint(2, 60), rng.randint(2, 60), rng.randint(2, 9)
        right = (a + b) * c
        slip = i % 3 == 0
        middle = a + b + (1 if slip else 0)
        steps = [
            f"First add the two amounts: {a} + {b} = {middle}.",
            f"Then multiply by the {c} days: {middle} * {c} = {middle * c}.",
            f"The answer is {middle * c}.",
        ]
        problem = f"A shop sells {a} pens in the morning and {b} in the afternoon, for {c} days. How many pens? ({i})"
        meta = {"gold": [str(right)]} if gold else {}
        out.append(from_first_error(f"g{i}", problem, steps, 0 if slip else -1, lang="en", meta=meta))
    return out


# ---------------------------------------------------------------- sections


def section_generation(args: argparse.Namespace, chat: Path, summary: dict[str, Any]) -> None:
    from benchmarks.generation_overhead import compare, print_comparison
    from runners.backends.transformers import TransformersBackend

    prompts, tokens, rounds = (8, 16, 2) if args.quick else (64, 128, 3)
    backend = TransformersBackend(str(chat), device=args.device, dtype=args.gen_dtype, batch_size=prompts)
    figures = compare(backend, prompts, tokens, rounds)
    print_comparison(figures)
    summary["generation"] = {**figures, "dtype": args.gen_dtype, "goal_ratio": 1.10}
    start = time.perf_counter()
    probe_tokens = 600 if args.quick else 1300  # a CK12 few-shot prompt and a 1,024-token CoT budget
    probed = backend.probe_batch_size(probe_tokens, cap=8 if args.quick else 256)
    summary["batch_auto"] = {"sequence_tokens": probe_tokens, "batch": probed, "probe_s": time.perf_counter() - start}
    print(f"--batch-size auto: {probed} sequences of {probe_tokens} tokens fit ({time.perf_counter() - start:.1f} s)")
    summary["run_batch_16"] = run_batch_16(args, chat, backend)


def run_batch_16(args: argparse.Namespace, chat: Path, backend: Any) -> dict[str, Any]:
    """``run --batch-size 16`` on 16 sample questions: one generate call (one batch latency)."""
    from runners.options import RunOptions
    from runners.run import run_questions
    from runners.store import RunStore

    out = Path(args.work) / "run16"
    shutil.rmtree(out, ignore_errors=True)
    backend.batch_size = 8  # the old backend default: --batch-size must override it
    options = RunOptions(
        data=ROOT / "k12eval" / "data" / "sample",  # the folder itself: data/sample is a link to it
        model=str(chat),
        out=out,
        limit=16,
        max_tokens=32,
        batch_size=16,
        backend_instance=backend,
    )
    start = time.perf_counter()
    run_questions(options, command=["gpu_check"])
    records = list(RunStore(out).records())
    latencies = sorted({r.latency_s for r in records if r.latency_s is not None})
    result = {
        "records": len(records),
        "distinct_batch_latencies": len(latencies),
        "generated_together": backend.batch_size,
        "wall_s": time.perf_counter() - start,
        "batch": RunStore(out).read_header().batch,
    }
    ok = len(records) == 16 and len(latencies) == 1
    print(f"run --batch-size 16 on 16 questions: {len(latencies)} generate call(s) ({'ok' if ok else 'FAILED'})")
    result["ok"] = ok
    return result


def _score(chains: list[Any], encoder: Any, nli: Any, batch_size: int) -> tuple[float, list[Any]]:
    from reasoning_metrics.scoring import score_chains

    start = time.perf_counter()
    scores = score_chains(chains, None, encoder, nli, lang="en", batch_size=batch_size, cache=False)
    return time.perf_counter() - start, scores


def _adapters(encoder_dir: Path, nli_dir: Path, device: str, dtype: str | None, batch_size: int) -> tuple[Any, Any]:
    from reasoning_metrics.models import load_model

    extra = {} if dtype is None else {"dtype": dtype}
    encoder = load_model("encoder", str(encoder_dir), device=device, batch_size=batch_size, **extra)
    nli = load_model("nli", str(nli_dir), device=device, batch_size=batch_size, **extra)
    return encoder, nli


def _values(scores: list[Any]) -> dict[str, list[float]]:
    table: dict[str, list[float]] = {}
    for record in scores:
        for name, value in record.scores.items():
            if isinstance(value, int | float):
                table.setdefault(name, []).append(float(value))
    return table


def section_scoring(args: argparse.Namespace, models: dict[str, Path], summary: dict[str, Any]) -> None:
    import inspect

    from reasoning_metrics.models.sbert import SentenceTransformerEncoder

    n_device, n_cpu, n_parity = (2, 1, 2) if args.quick else (1000, 30, 200)
    chains = processbench_like(n_device)
    steps = statistics.mean(len(c.hypothesis) for c in chains)
    has_dtype = "dtype" in inspect.signature(SentenceTransformerEncoder).parameters
    out: dict[str, Any] = {"chains": n_device, "steps_per_chain": steps, "batch_size": args.score_batch}
    summary["scoring"] = out

    encoder, nli = _adapters(models["bert"], models["nli"], args.device, None, args.score_batch)
    if not args.quick:
        _score(chains[:16], encoder, nli, args.score_batch)  # warm-up (CUDA context, allocator)
    # The first full pass meets each batch width for the first time (on a GPU each new width costs a
    # kernel plan); the second is the steady state of a long job. Both are reported.
    if args.profile is not None:  # where the first pass spends its time, by function (cProfile)
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        first, _ = profiler.runcall(_score, chains, encoder, nli, args.score_batch)
        with Path(args.profile).open("w", encoding="utf-8") as file:
            stats = pstats.Stats(profiler, stream=file)
            stats.sort_stats("tottime").print_stats(40)
            stats.sort_stats("cumulative").print_stats(60)
    else:
        first, _ = _score(chains, encoder, nli, args.score_batch)
    seconds, _ = _score(chains, encoder, nli, args.score_batch)
    out["first_pass_s"] = first
    out["first_pass_chains_per_s"] = n_device / first
    out["device_s"] = seconds
    out["device_chains_per_s"] = n_device / seconds
    out["device_dtype"] = getattr(encoder, "dtype_name", "float32")
    print(
        f"scoring on {args.device}: {n_device} chains ({steps:.1f} steps each): first pass {first:.1f} s = "
        f"{n_device / first:.1f} chains/s, second pass {seconds:.1f} s = {n_device / seconds:.1f} chains/s "
        f"(goal >= 150 on an H100), BERT-base encoder + NLI, {out['device_dtype']}"
    )
    if args.device != "cpu":
        cpu_encoder, cpu_nli = _adapters(models["bert"], models["nli"], "cpu", None, 32)
        cpu_s, _ = _score(chains[:n_cpu], cpu_encoder, cpu_nli, 32)
        out["cpu_chains"] = n_cpu
        out["cpu_threads"] = _threads()
        out["cpu_chains_per_s"] = n_cpu / cpu_s
        out["device_over_cpu"] = out["device_chains_per_s"] / out["cpu_chains_per_s"]
        print(
            f"scoring on the CPU ({_threads()} threads): {n_cpu} chains in {cpu_s:.1f} s = {n_cpu / cpu_s:.2f} chains/s; "
            f"{args.device} / CPU = {out['device_over_cpu']:.1f}x"
        )
        del cpu_encoder, cpu_nli
    if has_dtype:  # float16 (the GPU default) against float32, both asked for by name, on the same chains
        half_encoder, half_nli = _adapters(models["bert"], models["nli"], args.device, "float16", args.score_batch)
        _, half = _score(chains[:n_parity], half_encoder, half_nli, args.score_batch)
        del half_encoder, half_nli
        f32_encoder, f32_nli = _adapters(models["bert"], models["nli"], args.device, "float32", args.score_batch)
        _, reference = _score(chains[:n_parity], f32_encoder, f32_nli, args.score_batch)
        del f32_encoder, f32_nli
        ours, theirs = _values(half), _values(reference)
        diffs = {
            name: max((abs(a - b) for a, b in zip(ours[name], theirs.get(name, []), strict=False)), default=0.0)
            for name in ours
        }
        worst = max(diffs.values(), default=0.0)
        out["parity"] = {"chains": n_parity, "max_abs_diff": diffs, "worst": worst, "within_1e-3": worst <= 1e-3}
        print(f"float16 vs float32 on {n_parity} chains: worst metric differs by {worst:.2e} (goal <= 1e-3)")
        for name, value in sorted(diffs.items()):
            print(f"    {name:<28} {value:.2e}")
    mini, mini_nli = _adapters(models["minilm"], models["nli"], args.device, None, args.score_batch)
    _score(chains, mini, mini_nli, args.score_batch)  # its own first pass, as above
    mini_s, _ = _score(chains, mini, mini_nli, args.score_batch)
    out["minilm_chains_per_s"] = n_device / mini_s
    print(f"scoring with the MiniLM-shaped encoder + BERT-base NLI: {n_device / mini_s:.1f} chains/s (second pass)")


def section_detectors(args: argparse.Namespace, models: dict[str, Path], summary: dict[str, Any]) -> None:
    from reasoning_metrics.metaeval.detectors import DetectionContext, run_detectors
    from reasoning_metrics.models.prm_model import TransformersPRM
    from runners.backends.base import SamplingParams
    from runners.backends.transformers import TransformersBackend

    n_prm, n_roll, k = (12, 3, 2) if args.quick else (400, 30, 4)
    prm = TransformersPRM(str(models["prm"]), device=args.device, dtype=args.gen_dtype, batch_size=16)
    solutions = gsm8k_like(n_prm)
    start = time.perf_counter()
    (result,) = run_detectors(DetectionContext(solutions, prm=prm), ["prm"])
    seconds = time.perf_counter() - start
    scored = sum(s is not None for s in result.solution_scores)
    summary["prm"] = {
        "solutions": n_prm,
        "scored": scored,
        "s": seconds,
        "solutions_per_s": n_prm / seconds,
        "unavailable": result.unavailable,
    }
    print(f"prm: {scored}/{n_prm} solutions scored in {seconds:.1f} s ({n_prm / seconds:.1f}/s)")
    del prm
    backend = TransformersBackend(str(models["chat"]), device=args.device, dtype=args.gen_dtype, batch_size=256)
    solutions = gsm8k_like(n_roll, gold=True)
    params = SamplingParams(temperature=0.7, top_p=0.95, max_tokens=32 if args.quick else 128)
    context = DetectionContext(solutions, rollout_backend=backend, rollout_k=k, rollout_params=params)
    start = time.perf_counter()
    (result,) = run_detectors(context, ["rollouts"])
    seconds = time.perf_counter() - start
    generations = sum(len(s.steps) for s in solutions) * k
    summary["rollouts"] = {
        "solutions": n_roll,
        "k": k,
        "generations": generations,
        "max_tokens": params.max_tokens,
        "s": seconds,
        "generations_per_s": generations / seconds,
        "checked": sum(s is not None for s in result.solution_scores),
        "unavailable": result.unavailable,
    }
    print(f"rollouts: {generations} generations ({n_roll} solutions, k={k}) in {seconds:.1f} s")


def _threads() -> int:
    import torch

    return int(torch.get_num_threads())


def main() -> None:
    parser = argparse.ArgumentParser(description="k12eval on the device: generation, scoring, detectors")
    parser.add_argument("--device", default=None, help="cuda (default when present) or cpu")
    parser.add_argument("--quick", action="store_true", help="tiny shapes and counts: the plumbing in a minute")
    parser.add_argument("--json", type=Path, default=None, help="the summary (default: $OUT/gpu.json, else ./gpu.json)")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "k12eval-gpu-check")
    parser.add_argument("--score-batch", type=int, default=256, help="texts or pairs per model call in scoring")
    parser.add_argument("--profile", type=Path, default=None, help="write a cProfile of the device scoring pass here")
    parser.add_argument("--only", default="generation,scoring,detectors", help="sections to run, comma-separated")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # a call cut short still shows its lines
    missing = _missing()
    if missing:
        raise SystemExit(f"missing packages: {', '.join(missing)} (scripts/device_wheels.sh fetches them)")
    import torch

    args.device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    args.gen_dtype = "float32" if args.device == "cpu" else "bfloat16"
    target = args.json or Path(os.environ.get("OUT", ".")) / "gpu.json"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("K12EVAL_HOME", str(args.work / "home"))
    summary: dict[str, Any] = {
        "device": args.device,
        "card": torch.cuda.get_device_name(0) if args.device.startswith("cuda") else platform.processor() or "cpu",
        "quick": args.quick,
        "versions": {m: _version(m) for m in ("torch", "transformers", "sentence_transformers", "numpy")},
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "errors": {},
        "seconds": {},
    }
    print(f"device: {summary['card']} ({args.device}); {summary['versions']}", flush=True)
    started = time.perf_counter()

    def timed(name: str, work: Callable[[], None]) -> None:
        start = time.perf_counter()
        print(f"\n== {name}", flush=True)
        try:
            work()
        except Exception as exc:  # one failed section must not lose the others' figures
            traceback.print_exc()
            summary["errors"][name] = f"{type(exc).__name__}: {exc}"[:2000]
        summary["seconds"][name] = round(time.perf_counter() - start, 2)
        summary["seconds"]["total"] = round(time.perf_counter() - started, 2)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
        print(f"({name}: {summary['seconds'][name]:.1f} s; total {summary['seconds']['total']:.1f} s)", flush=True)

    models: dict[str, Path] = {}
    work = args.work
    wanted = set(args.only.split(","))

    def build() -> None:
        if wanted & {"generation", "detectors"}:
            models["chat"] = build_chat(work / ("chat-tiny" if args.quick else "chat-qwen2.5-0.5b"), args.quick)
        if "detectors" in wanted:
            models["prm"] = build_prm(work / ("prm-tiny" if args.quick else "prm-qwen2.5-0.5b"), args.quick)
        if "scoring" in wanted:
            models["bert"] = build_encoder(work / "encoder-bert-base", 12, 768)
            models["minilm"] = build_encoder(work / "encoder-minilm", 6, 384)
            models["nli"] = build_nli(work / "nli-bert-base")

    timed("build", build)
    if "generation" in wanted and "chat" in models:
        timed("generation", lambda: section_generation(args, models["chat"], summary))
    if "scoring" in wanted and "nli" in models:
        timed("scoring", lambda: section_scoring(args, models, summary))
    if "detectors" in wanted and "prm" in models:
        timed("detectors", lambda: section_detectors(args, models, summary))
    print(f"\nsummary: {target}")
    print(json.dumps({k: v for k, v in summary.items() if k in ("card", "errors", "seconds")}, default=str))
    if summary["errors"]:
        raise SystemExit(1)


def _version(module: str) -> str:
    try:
        return str(importlib.import_module(module).__version__)
    except Exception:
        return "absent"


if __name__ == "__main__":
    main()
