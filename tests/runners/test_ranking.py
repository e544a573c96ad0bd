"""Ranks from option scores, Xiezhi's ranking metrics, and the next-token letter pick."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from runners.backends.base import Backend
from runners.ranking import gold_rank, hit_at, letter_scores, mean_normalized_rank, mrr, pick_letter, ranks


def test_rank_one_is_the_most_probable() -> None:
    scores = {"A": -3.0, "B": -0.5, "C": -1.2, "D": -7.0}
    assert ranks(scores) == {"B": 1, "C": 2, "A": 3, "D": 4}
    assert gold_rank(scores, "C") == 2


def test_ties_take_the_worst_rank_of_their_group() -> None:
    assert ranks({"A": -1.0, "B": -1.0, "C": -2.0}) == {"A": 2, "B": 2, "C": 3}
    flat = {label: -1.386 for label in "ABCD"}
    assert gold_rank(flat, "A") == 4  # a model that cannot tell options apart gets no credit
    assert hit_at([gold_rank(flat, "A")], 1) == 0.0


def test_nan_ranks_last() -> None:
    assert ranks({"A": float("nan"), "B": -9.0}) == {"B": 1, "A": 2}
    assert gold_rank({"A": -math.inf, "B": float("nan")}, "A") == 2


def test_unknown_gold() -> None:
    with pytest.raises(KeyError, match="gold option 'E'"):
        gold_rank({"A": 0.0}, "E")


def test_metrics_worked_by_hand() -> None:
    gold_ranks = [1, 2, 4, 50]
    assert mrr(gold_ranks) == pytest.approx((1 + 0.5 + 0.25 + 0.02) / 4)
    assert hit_at(gold_ranks, 1) == 0.25
    assert hit_at(gold_ranks, 4) == 0.75
    assert mean_normalized_rank(gold_ranks, 50) == pytest.approx((1 + 2 + 4 + 50) / 4 / 50)
    assert mean_normalized_rank([1, 2], [4, 50]) == pytest.approx((1 / 4 + 2 / 50) / 2)


def test_the_released_xiezhi_direction_would_invert_ranks() -> None:
    # Sorting ascending (the released code's latest commit) ranks the least likely first: rank n + 1 - r.
    scores = {"A": -0.1, "B": -2.0, "C": -5.0}
    ascending = {label: i + 1 for i, (label, _) in enumerate(sorted(scores.items(), key=lambda kv: kv[1]))}
    assert ascending["A"] == len(scores) + 1 - ranks(scores)["A"] == 3
    assert ranks(scores)["A"] == 1


def test_metric_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match="no ranks"):
        mrr([])
    with pytest.raises(ValueError, match="start at 1"):
        hit_at([0], 1)
    with pytest.raises(ValueError, match="larger than"):
        mean_normalized_rank([5], 4)
    with pytest.raises(ValueError, match="option counts"):
        mean_normalized_rank([1, 2], [4])


def test_letter_scores_pool_spellings_of_a_letter() -> None:
    top = {" A": math.log(0.2), "A": math.log(0.1), "Ｂ": math.log(0.3), "b": math.log(0.3), "The": -0.1}
    scores = letter_scores(top, ["A", "B", "C", "D"])
    assert scores.keys() == {"A", "B"}
    assert scores["A"] == pytest.approx(math.log(0.3))
    assert scores["B"] == pytest.approx(math.log(0.3))


def test_pick_letter_never_guesses() -> None:
    assert pick_letter({"A": -2.0, "B": -0.3, "C": -1.0}) == "B"
    assert pick_letter({"A": -1.0, "B": -1.0}) is None  # a tie is not broken by label order
    assert pick_letter({}) is None
    assert pick_letter({"A": -math.inf, "B": float("nan")}) is None


class _Perplexity(Backend):
    """A backend scoring each continuation by a fixed log-probability and token count per option text."""

    name = "fake-ppl"
    model = "fake-ppl"
    is_chat = True

    def __init__(self, scores: dict[str, tuple[float, int]]) -> None:
        self.scores = scores
        self.requests: list[object] = []

    def loglikelihood(self, requests):  # type: ignore[no-untyped-def]
        from runners.backends.base import LoglikelihoodResult

        self.requests.extend(requests)
        results = []
        for request in requests:
            found = [next(v for k, v in self.scores.items() if c.endswith(k)) for c in request.continuations]
            results.append(LoglikelihoodResult(request.id, [lp for lp, _ in found], [n for _, n in found]))
        return results

    def count_tokens(self, text: str) -> int:
        return len(text)


def test_the_perplexity_strategy_picks_the_lowest_perplexity_of_question_and_option(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # CMMLU's perplexity strategy (#26 item 7): the whole text, question then option, from its first token;
    # the lowest perplexity wins, not the highest total log-probability (a longer option has a lower total).
    from pathlib import Path

    from runners.options import RunOptions
    from runners.run import run_questions
    from runners.store import RunStore

    bank = tmp_path / "cmmlu" / "test"
    bank.mkdir(parents=True)
    (bank / "high_school_physics.csv").write_text(
        ",Question,A,B,C,D,Answer\n0,电阻的国际单位是,安培,伏特,欧姆定律的单位,瓦特,C\n", encoding="utf-8"
    )
    # totals: A -20 (10 tokens, ppl e^2), B -18 (9, e^2), C -24 (16 tokens, ppl e^1.5: the lowest), D -30 (10, e^3)
    backend = _Perplexity({"安培": (-20.0, 10), "伏特": (-18.0, 9), "欧姆定律的单位": (-24.0, 16), "瓦特": (-30.0, 10)})
    out = Path(tmp_path / "run")
    options = RunOptions(
        data=bank, model="m", out=out, backend="fake-ppl", backend_instance=backend, strategy="perplexity"
    )
    run_questions(options, command=["k12eval", "run"])
    (record,) = RunStore(out).records()
    assert record.extracted == ["C"] and record.correct and record.gold_rank == 1
    assert record.option_scores == {"A": -2.0, "B": -2.0, "C": -1.5, "D": -3.0}
    (request,) = backend.requests
    assert request.prompt == "" and request.continuations[2].startswith("以下是关于")  # the whole text is scored
    assert request.continuations[2].endswith("答案是：欧姆定律的单位")


def test_a_ranking_in_words_is_read_line_by_line() -> None:
    # Xiezhi's API models rank the options through an instruction (#26 item 7): the reply is the ranking.
    from runners.ranking import instructed_scores

    options = {"A": "尧时期", "B": "禹时期", "C": "黄帝时期", "D": "舜时期"}
    reply = "1. 禹时期\n2、舜时期。\n第3位：我认为是黄帝时期\n禹时期"  # a repeat counts at its first line
    scores = instructed_scores(reply, options)
    assert scores == {"B": -1.0, "D": -2.0, "C": -3.0, "A": -5.0}  # A never listed: below every listed one
    assert gold_rank(scores, "B") == 1 and gold_rank(scores, "A") == 4
    english = instructed_scores("- Newton\n- joule", {"A": "joule", "B": "newton", "C": "watt"})
    assert english == {"A": -2.0, "B": -1.0, "C": -4.0}
    nothing = instructed_scores("我不知道", options)
    assert {gold_rank(nothing, label) for label in options} == {4}  # no ranking: the gold option is last


@pytest.mark.parametrize("counts", [[], [3]])
def test_perplexity_without_token_counts_fails_its_request_like_any_backend_error(tmp_path: Path, counts: list) -> None:
    # A backend that gives no (or too few) token counts fails the request: the record kept its share of the
    # call's time and where a replayed score came from, as every other failed request does; it had neither.
    from runners.backends.base import LoglikelihoodRequest, LoglikelihoodResult
    from runners.options import RunOptions
    from runners.run import run_questions
    from tests._runs import question, write_bank
    from tests.scripted import ScriptedBackend

    class NoCounts(ScriptedBackend):
        def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
            return [
                LoglikelihoodResult(r.id, logprobs=[-1.0] * 4, token_counts=counts, harness={"file": "x.jsonl"})
                for r in requests
            ]

    bank = write_bank(tmp_path / "bank", [question("q0", "物理", "力学", "浮力", stem="浮力的方向是")])
    backend = NoCounts()
    options = RunOptions(
        data=bank,
        model="m",
        out=tmp_path / "run",
        backend=backend.name,
        backend_instance=backend,
        strategy="perplexity",
    )
    [record] = run_questions(options).records
    assert record.parse_status == "failed" and "no token counts" in str(record.error)
    assert record.latency_s is not None and record.harness == {"file": "x.jsonl"}
