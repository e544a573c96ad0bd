"""`--batch-size` reaches the model, `auto` picks by device (on a CPU by a measurement) (#24 item 1, #23 item 6, #33 item 2).

That answers are on disk as they finish, and that no signal drops one, is tested without timing in
tests/runners/test_run_streamed.py and tests/runners/backends/test_continuous_kill.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg.errors import SettingError
from runners.backends.base import Backend, GenerationRequest, SamplingParams
from runners.batch_plan import backend_batch, faster_batch, parse_batch_size
from runners.store import RunStore
from tests._cli import cli_ok
from tests.conftest import REPO

SAMPLE = REPO / "data" / "sample"


@pytest.mark.slow
def test_batch_size_16_on_16_questions_is_one_generate_call(tiny_qwen2: Path, tmp_path: Path) -> None:
    out = tmp_path / "b16"
    cli_ok(
        "run", str(SAMPLE), "--model", str(tiny_qwen2), "--out", str(out), "--limit", "16", "--max-tokens", "4",
        "--batch-size", "16", "-B", "continuous=false",
    )  # fmt: skip
    store = RunStore(out)
    latencies = {r.latency_s for r in store.records()}
    assert len(list(store.records())) == 16
    assert len(latencies) == 1  # one generate call: one batch latency shared by its 16 records
    batch = store.read_header().batch
    assert batch == {"asked": 16, "questions_per_call": 16, "generated_together": 16, "streamed": True}


@pytest.mark.slow
def test_auto_on_a_cpu_measures_and_a_backend_option_batch_size_still_wins(tiny_qwen2: Path, tmp_path: Path) -> None:
    out = tmp_path / "auto"
    cli_ok("run", str(SAMPLE), "--model", str(tiny_qwen2), "--out", str(out), "--limit", "8", "--max-tokens", "4")
    batch = RunStore(out).read_header().batch
    speeds = {int(k): v for k, v in batch["tokens_per_s"].items()}
    assert sorted(speeds) == [1, 2, 4, 8] and all(v > 0 for v in speeds.values())  # never more than the questions
    assert batch["generated_together"] == faster_batch(speeds) and "measured" in batch["why"]
    out = tmp_path / "pinned"
    cli_ok(
        "run",
        str(SAMPLE),
        *("--model", str(tiny_qwen2), "--out", str(out), "--limit", "8", "--max-tokens", "4"),
        *("--batch-size", "8", "-B", "batch_size=4"),
    )
    store = RunStore(out)
    assert len({r.latency_s for r in store.records()}) == 8  # continuous: each answer its own time
    assert store.read_header().batch == {"asked": 8, "questions_per_call": 8, "generated_together": 4, "streamed": True}


def test_the_option_takes_a_number_or_auto() -> None:
    assert parse_batch_size("auto") == "auto" and parse_batch_size("12") == 12
    for bad in ("0", "-3", "big", "1.5"):
        with pytest.raises(SettingError, match=f"^batch_size {bad!r}: give a whole number") as refused:
            parse_batch_size(bad)
        assert refused.value.setting == "batch_size"


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
    cpu = _Local("cpu")  # no measure_batch_speed: one at a time
    assert backend_batch("auto", cpu, False, 500, _never)[0] == 1 and cpu.batch_size == 1
    pinned = _Local("cuda")
    assert backend_batch("auto", pinned, True, 500, _never)[0] == 8 and not pinned.probed
    server = object()
    assert backend_batch("auto", server, False, 500, _never) == (16, {"asked": "auto", "questions_per_call": 16})
    assert backend_batch(5, server, False, 500, _never)[0] == 5


class _Measured(_Local):
    """A CPU backend whose decoding speed by batch is given."""

    def __init__(self, speeds: dict[int, float]) -> None:
        super().__init__("cpu")
        self.speeds = speeds
        self.measured: list[list[int]] = []

    def measure_batch_speed(self, sizes: list[int]) -> dict[int, float]:
        self.measured.append(list(sizes))
        return {size: self.speeds[size] for size in sizes}


def test_auto_on_a_cpu_takes_the_batch_measured_fastest_and_records_the_measurement() -> None:
    speeds = {1: 5.0, 2: 9.8, 4: 18.0, 8: 30.0, 16: 31.5, 32: 32.0, 5: 20.0}
    cpu = _Measured(speeds)
    size, record = backend_batch("auto", cpu, False, 500, _never)
    assert cpu.measured == [[1, 2, 4, 8, 16, 32]]
    assert size == cpu.batch_size == 8  # the smallest within 10 % of the fastest (32)
    assert record["tokens_per_s"] == {"1": 5.0, "2": 9.8, "4": 18.0, "8": 30.0, "16": 31.5, "32": 32.0}
    few = _Measured(speeds)
    assert backend_batch("auto", few, False, 5, _never)[0] == 4 and few.measured == [[1, 2, 4, 5]]  # 5: no more
    resumed = _Measured(speeds)  # a resumed run takes what run.json recorded, on the same device only
    assert backend_batch("auto", resumed, False, 500, _never, record) == (8, record) and not resumed.measured
    moved = _Measured(speeds)
    assert backend_batch("auto", moved, False, 500, _never, {**record, "device": "cuda:0"})[0] == 8
    assert moved.measured == [[1, 2, 4, 8, 16, 32]]
    assert faster_batch({1: 5.0, 2: 5.2}) == 1 and faster_batch({1: 5.0}) == 1
    assert faster_batch({1: 5.0, 2: 9.0, 4: 8.0, 8: 20.0}) == 8  # a dip on the way does not stop the search


@pytest.mark.slow
def test_a_batch_out_of_gpu_memory_is_split_not_failed(tiny_qwen2: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from runners.backends.transformers import TransformersBackend

    backend = TransformersBackend(str(tiny_qwen2), batch_size=8, continuous=False)  # the GPU's path
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
