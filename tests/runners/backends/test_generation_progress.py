"""A long generate call of the transformers backend says how far it is (#17 item 3).

The demo's chain-of-thought batch is one ``generate`` call of minutes: the run's batch lines
come only at its ends, so the backend itself logs, every ``progress_every_s`` seconds, the
sequences finished and the tokens generated so far.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest

from runners.backends.base import GenerationRequest, SamplingParams
from runners.backends.transformers import TransformersBackend

LINE = re.compile(r"^(\d+)/(\d+) sequences (?:of this batch )?finished, (\d+) tokens in [0-9.]+ s \([0-9.]+ tokens/s")
PROMPTS = ["一加一等于几？", "水的化学式是什么？", "Name a prime number.", "太阳从哪边升起？", "写一个字。"]


def _requests(max_tokens: int) -> list[GenerationRequest]:
    params = SamplingParams(temperature=0.0, max_tokens=max_tokens)
    return [GenerationRequest(f"q{i}", prompt, params) for i, prompt in enumerate(PROMPTS)]


@pytest.mark.slow
@pytest.mark.parametrize("continuous", [False, True])
def test_each_step_can_be_logged_and_the_last_line_counts_every_token(
    continuous: bool, tiny_model_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    backend = TransformersBackend(str(tiny_model_dir), batch_size=8, progress_every_s=0, continuous=continuous)
    with caplog.at_level(logging.INFO, logger="runners.backends"):
        results = backend.generate(_requests(12))
    lines = [LINE.match(r.getMessage()) for r in caplog.records if "sequences " in r.getMessage()]
    assert lines and all(lines), [r.getMessage() for r in caplog.records]
    finished = [int(m.group(1)) for m in lines if m]
    tokens = [int(m.group(3)) for m in lines if m]
    assert finished == sorted(finished) and tokens == sorted(tokens)  # they only grow
    assert {int(m.group(2)) for m in lines if m} == {len(PROMPTS)}
    assert tokens[-1] == sum(r.completion_tokens or 0 for r in results)  # an EOS counts; padding after it does not
    # The static batch counts rows that ended on their own; the continuous one every sequence that left it.
    assert finished[-1] == (len(results) if continuous else sum(r.finish_reasons == ["stop"] for r in results))


@pytest.mark.slow
def test_a_quick_batch_logs_nothing_and_the_option_is_checked(
    tiny_backend: Any, tiny_model_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="runners.backends"):
        tiny_backend.generate(_requests(4))  # default: a line every 10 s; this takes far less
    assert not [r for r in caplog.records if "sequences " in r.getMessage()]
    with pytest.raises(ValueError, match="progress_every_s"):
        TransformersBackend(str(tiny_model_dir), progress_every_s=-1)
