"""`--batch-size` reaches the model, `auto` picks by device, and answers are on disk as they finish (#24 item 1, #23 item 6)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kg.errors import InputError
from runners.backends.base import Backend, GenerationRequest, SamplingParams
from runners.batch_plan import backend_batch, parse_batch_size
from runners.store import RunStore
from tests._cli import cli_ok
from tests.conftest import REPO

SAMPLE = REPO / "data" / "sample"


@pytest.mark.slow
def test_batch_size_16_on_16_questions_is_one_generate_call(tiny_qwen2: Path, tmp_path: Path) -> None:
    out = tmp_path / "b16"
    cli_ok(
        "run", str(SAMPLE), "--model", str(tiny_qwen2), "--out", str(out), "--limit", "16", "--max-tokens", "4",
        "--batch-size", "16",
    )  # fmt: skip
    store = RunStore(out)
    latencies = {r.latency_s for r in store.records()}
    assert len(list(store.records())) == 16
    assert len(latencies) == 1  # one generate call: one batch latency shared by its 16 records
    assert store.read_header().batch == {"asked": 16, "questions_per_call": 16, "generated_together": 16}


@pytest.mark.slow
def test_a_backend_option_batch_size_still_wins(tiny_qwen2: Path, tmp_path: Path) -> None:
    out = tmp_path / "pinned"
    cli_ok("run", str(SAMPLE), "--model", str(tiny_qwen2), "--out", str(out), "--limit", "8", "--max-tokens", "4")
    assert RunStore(out).read_header().batch["questions_per_call"] == 1
    out = tmp_path / "pinned2"
    cli_ok(
        "run",
        str(SAMPLE),
        *("--model", str(tiny_qwen2), "--out", str(out), "--limit", "8", "--max-tokens", "4"),
        *("--batch-size", "8", "-B", "batch_size=4"),
    )
    store = RunStore(out)
    assert len({r.latency_s for r in store.records()}) == 2  # 8 questions asked at once, generated 4 and 4
    assert store.read_header().batch == {"asked": 8, "questions_per_call": 8, "generated_together": 4}


@pytest.mark.slow
def test_ctrl_c_keeps_every_answer_that_finished(tiny_qwen2: Path, tmp_path: Path) -> None:
    """The default batch on a CPU writes each answer as it is generated: a Ctrl-C loses at most the one in flight."""
    out = tmp_path / "interrupted"
    cmd = [sys.executable, "-m", "k12eval", "run", str(SAMPLE), "--model", str(tiny_qwen2), "--out", str(out)]
    cmd += ["--mode", "zero-shot-cot", "--limit", "8", "--max-tokens", "200"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    records = out / "records.jsonl"
    deadline = time.monotonic() + 180
    seen = 0
    while time.monotonic() < deadline and proc.poll() is None:
        seen = records.read_bytes().count(b"\n") if records.exists() else 0
        if seen >= 2:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before two answers were seen on disk one by one"
    assert 2 <= seen < 8  # answers reach the disk while the others are still being generated
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    kept = list(RunStore(out).records())
    assert seen <= len(kept) < 8
    subprocess.run(cmd, cwd=REPO, env=env, check=True, capture_output=True)
    assert len({r.question_id for r in RunStore(out).records()}) == 8


def test_the_option_takes_a_number_or_auto() -> None:
    assert parse_batch_size("auto") == "auto" and parse_batch_size("12") == 12
    for bad in ("0", "-3", "big", "1.5"):
        with pytest.raises(InputError, match="--batch-size"):
            parse_batch_size(bad)


def _never() -> int:
    raise AssertionError("only a GPU is probed")


class _Local(Backend):
    """A backend with a micro-batch on some device; ``probe_batch_size`` answers what fits."""

    def __init__(self, device: str, fits: int = 48) -> None:
        self.batch_size = 8
        self.device = device
        self.fits = fits
        self.probed: list[tuple[int, int]] = []

    def probe_batch_size(self, tokens: int, *, cap: int) -> int:
        self.probed.append((tokens, cap))
        return min(self.fits, cap)


def test_auto_probes_a_gpu_once_and_asks_that_many_questions_at_once() -> None:
    gpu = _Local("cuda:0")
    size, record = backend_batch("auto", gpu, False, 500, lambda: 1300)
    assert size == 48 and gpu.batch_size == 48 and gpu.probed == [(1300, 256)]
    assert record["questions_per_call"] == 48 and "memory" in record["why"]
    few = _Local("cuda")
    assert backend_batch("auto", few, False, 20, lambda: 10)[0] == 20  # never more than the questions
    cpu = _Local("cpu")
    assert backend_batch("auto", cpu, False, 500, _never)[0] == 1 and cpu.batch_size == 1
    pinned = _Local("cuda")
    assert backend_batch("auto", pinned, True, 500, _never)[0] == 8 and not pinned.probed
    server = object()
    assert backend_batch("auto", server, False, 500, _never) == (16, {"asked": "auto", "questions_per_call": 16})
    assert backend_batch(5, server, False, 500, _never)[0] == 5


@pytest.mark.slow
def test_a_batch_out_of_gpu_memory_is_split_not_failed(tiny_qwen2: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from runners.backends.transformers import TransformersBackend

    backend = TransformersBackend(str(tiny_qwen2), batch_size=8)
    real = backend._generate_batch
    sizes: list[int] = []

    def small_memory(prompts: list[list[int]], params: Any) -> Any:
        sizes.append(len(prompts))
        if len(prompts) > 2:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real(prompts, params)

    monkeypatch.setattr(backend, "_generate_batch", small_memory)
    params = SamplingParams(temperature=0.0, max_tokens=3)
    results = backend.generate([GenerationRequest(f"q{i}", f"第{i}题：一加{i}等于几？", params) for i in range(8)])
    assert all(r.error is None and r.texts for r in results)
    assert sizes[0] == 8 and max(s for s in sizes[1:]) <= 4 and sum(s for s in sizes if s <= 2) == 8
    assert backend.probe_batch_size(16, cap=4) == 4  # on a CPU nothing runs out: the cap


@pytest.mark.parametrize(
    ("strategy", "generates"), [("generate", True), ("instruct-rank", True), ("next-token", False)]
)
def test_the_longest_sequence_holds_the_reply_of_every_strategy_that_generates(strategy: str, generates: bool) -> None:
    # instruct-rank generates its ranking (up to max_tokens), yet the GPU batch was sized for 64 new tokens.
    from runners.answering import Answerer
    from runners.options import RunOptions
    from tests.qfactory import single

    class Chat:
        is_chat = True

        def count_tokens(self, text: str) -> int:
            return len(text)

    options = RunOptions(
        data=Path("bank"),
        model="m",
        out=Path("out"),
        template_set="xiezhi",
        shots=0,
        strategy=strategy,  # type: ignore[arg-type]
    )
    question = single(source="xiezhi", stem="中国的首都是哪座城市？")

    def longest(max_tokens: int) -> int:
        answerer = Answerer(options, Chat(), SamplingParams(max_tokens=max_tokens), None, "")  # type: ignore[arg-type]
        return answerer.longest_sequence([question])

    assert longest(700) - longest(10) == (690 if generates else 0)
