"""The loop guard: where it stops a repeating sequence, and that it spares the real answers that ended by themselves (#33 item 3)."""

from __future__ import annotations

import json
import random

import pytest

from runners.backends._shared import finish_tokens
from runners.loop_guard import LOOP_WINDOW, LoopWatch, loop_end, loop_spans
from tests.conftest import REPO


def test_a_piece_written_again_and_again_is_stopped_once_it_spans_the_window() -> None:
    prefix = list(range(100, 130))  # thirty different tokens, then a three-token piece over and over
    tokens = prefix + [1, 2, 3] * 40
    assert loop_end(tokens, 12) == len(prefix) + 12
    assert loop_end(tokens, 60) == len(prefix) + 60
    assert loop_end(prefix, 2) is None and loop_end(tokens, 0) is None  # no repetition; the guard off


def test_one_copy_of_a_long_passage_is_no_loop_until_a_second_whole_copy_follows() -> None:
    passage = list(range(40))
    # Two copies in a row span 80 tokens, but a window of 64 needs the second copy whole: after 80, not 64.
    assert loop_end(passage + passage, 64) == 80
    assert loop_end(passage + passage[:30], 64) is None  # a passage restated in part is not a loop
    assert loop_end([*passage, 99, *passage], 64) is None  # a copy with a token between is not "in a row"


def test_the_watch_token_by_token_agrees_with_the_whole_sequence() -> None:
    rng = random.Random(3)
    for _ in range(200):
        piece = [rng.randrange(6) for _ in range(rng.randrange(1, 9))]
        tokens = [rng.randrange(6) for _ in range(rng.randrange(40))] + piece * rng.randrange(1, 12)
        window = rng.randrange(1, 40)
        watch = LoopWatch(window)
        stopped = next((n for n, token in enumerate(tokens, start=1) if watch.push(token)), None)
        assert stopped == loop_end(tokens, window)
        assert watch.tokens == tokens[: stopped or len(tokens)]  # it keeps nothing after the stop
        spans = loop_spans(tokens)
        assert stopped == next((n for n, span in enumerate(spans, start=1) if span >= window), None)


def _decode(ids: object) -> str:
    return " ".join(map(str, ids))  # type: ignore[call-overload]


def test_every_path_ends_an_answer_by_one_rule() -> None:
    eos = {0}
    looping = [7, 8, 9] + [1, 2] * 10
    assert finish_tokens([*looping, 0], eos_ids=eos, stop=(), loop_window=6, decode=_decode) == (
        "7 8 9 1 2 1 2 1 2",
        9,
        "loop",
    )
    # The end-of-sequence token counts; a stop string before the loop wins; after it the loop does.
    assert finish_tokens([5, 6, 0, 4], eos_ids=eos, stop=(), loop_window=6, decode=_decode) == ("5 6", 3, "stop")
    assert finish_tokens(looping, eos_ids=eos, stop=("8",), loop_window=6, decode=_decode) == ("7 ", 9, "stop")
    assert finish_tokens(looping, eos_ids=eos, stop=("2 1 2 1 2 1",), loop_window=6, decode=_decode)[2] == "loop"
    assert finish_tokens([5, 6], eos_ids=eos, stop=(), loop_window=6, decode=_decode) == ("5 6", 2, "length")


@pytest.mark.slow
def test_the_chosen_window_spares_every_real_answer_that_ended_by_itself() -> None:
    """Real zero-shot-CoT answers of Qwen2.5-Coder-0.5B to CK12 questions (data/ck12_errors), its own tokenizer.

    None of the answers that ended before the 512-token budget is cut, and each labelled non-answer
    that degenerated into repetition is (the window's choice: benchmarks/loop_guard.py).
    """
    pytest.importorskip("transformers")
    from k12eval.models import find_installed

    installed = find_installed("qwen2.5-coder-0.5b-instruct")
    if installed is None:
        pytest.skip("the packaged Qwen2.5-Coder-0.5B-Instruct is not installed (k12eval models pull --offline)")
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(installed))
    ended, cut, loops = 0, [], []
    for name in ("qwen2.5-coder-0.5b-instruct.jsonl", "qwen2.5-coder-0.5b-instruct-graded-right.jsonl"):
        for line in (REPO / "data" / "ck12_errors" / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            tokens = tokenizer(record["output"], add_special_tokens=False)["input_ids"]
            stopped = loop_end(tokens, LOOP_WINDOW)
            if len(tokens) < 500:  # ended by itself, well before the budget
                ended += 1
                if stopped is not None:
                    cut.append(record["id"])
            elif record.get("answered") is False and "note" in record and "repeat" in record["note"]:
                loops.append(stopped is not None)
    assert ended > 400 and not cut
    assert loops and all(loops)
