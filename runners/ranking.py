"""From option scores to ranks and ranking metrics (Xiezhi), the next-token letter pick and the perplexity
strategy's scores (CMMLU).

Ranks: rank 1 is the most probable option (the highest log-probability). Ties
are ranked *pessimistically*: an option tied with others gets the worst rank of
its tie group, so a model that scores every option the same gets rank n, not 1,
for the gold option (an optimistic rule would hand it Hit@1 = 1). NaN scores
rank below every number.

Xiezhi's metrics: MRR (mean of 1/rank of the gold option), Hit@k (share of
questions whose gold rank is at most k) and mean rank divided by the number of
options (lower is better). The released Xiezhi code at its latest commit sorts
ascending, ranking the *least* likely option first; its earlier version, the
paper and this module rank the most likely first.

How an option's text is scored (``--rank-norm``, :data:`RANK_NORMS`, :func:`normalised_score`): the
summed log-probability of its tokens favours short options, which among Xiezhi's 50 (most of them
drawn from other questions) decides many ranks; the release averages the loss instead.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Literal, get_args

RankNorm = Literal["mean-token", "per-char", "sum"]
"""How ``rank-options`` scores an option from the log-probabilities of its tokens after the prompt:

- ``mean-token``: their mean, the log-probability per token (Xiezhi's release, ``xiezhi_evaluate.py``,
  ranks by the loss averaged over the sequence; the paper's figures come from it);
- ``per-char``: their sum divided by the option's length in characters (lm-evaluation-harness's
  ``acc_norm``, which divides by ``len(choice)``: characters, so a Chinese option is not penalised for its
  UTF-8 bytes);
- ``sum``: their sum, unnormalised (lm-evaluation-harness's ``acc``), which favours short options.
"""
RANK_NORMS: tuple[RankNorm, ...] = get_args(RankNorm)


def _key(score: float) -> float:
    return -math.inf if math.isnan(score) else score


def ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """Each option's rank, 1 = highest score; tied options all get the tie's worst rank."""
    values = {label: _key(score) for label, score in scores.items()}
    return {label: sum(1 for other in values.values() if other >= value) for label, value in values.items()}


def gold_rank(scores: Mapping[str, float], gold: str) -> int:
    """The rank of the gold option (pessimistic on ties)."""
    if gold not in scores:
        raise KeyError(f"gold option {gold!r} has no score; scored: {', '.join(scores)}")
    value = _key(scores[gold])
    return sum(1 for other in scores.values() if _key(other) >= value)


def mrr(gold_ranks: Sequence[int]) -> float:
    """Mean reciprocal rank of the gold options."""
    _check(gold_ranks)
    return sum(1 / r for r in gold_ranks) / len(gold_ranks)


def hit_at(gold_ranks: Sequence[int], k: int) -> float:
    """Share of questions whose gold option is ranked ``k`` or better (Hit@1 is accuracy)."""
    _check(gold_ranks)
    return sum(1 for r in gold_ranks if r <= k) / len(gold_ranks)


def mean_normalized_rank(gold_ranks: Sequence[int], option_counts: Sequence[int] | int) -> float:
    """Mean of rank / number of options (Xiezhi's "mean rank"; lower is better, 1/n at best, 1 at worst)."""
    _check(gold_ranks)
    counts = [option_counts] * len(gold_ranks) if isinstance(option_counts, int) else list(option_counts)
    if len(counts) != len(gold_ranks):
        raise ValueError(f"{len(gold_ranks)} ranks but {len(counts)} option counts")
    if any(r > n or n < 1 for r, n in zip(gold_ranks, counts, strict=True)):
        raise ValueError("a rank is larger than its number of options")
    return sum(r / n for r, n in zip(gold_ranks, counts, strict=True)) / len(gold_ranks)


def _check(gold_ranks: Sequence[int]) -> None:
    if not gold_ranks:
        raise ValueError("no ranks to average")
    if any(r < 1 for r in gold_ranks):
        raise ValueError("ranks start at 1")


def letter_scores(top_logprobs: Mapping[str, float], labels: Sequence[str]) -> dict[str, float]:
    """The log-probability of each option letter as the next token, from a backend's top tokens.

    Tokens that spell the same letter (``"A"``, ``" A"``, ``"Ａ"``) are pooled
    (log-sum-exp). Lower-case tokens are not letters. Letters absent from the
    top tokens are left out.
    """
    pooled: dict[str, list[float]] = {}
    wanted = set(labels)
    for token, logprob in top_logprobs.items():
        letter = unicodedata.normalize("NFKC", token).strip()
        if letter in wanted and not math.isnan(logprob):
            pooled.setdefault(letter, []).append(logprob)
    return {label: _logsumexp(pooled[label]) for label in labels if label in pooled}


def pick_letter(scores: Mapping[str, float]) -> str | None:
    """The most probable letter; ``None`` when there is none or the top is tied (k12eval never guesses)."""
    finite = {label: s for label, s in scores.items() if not math.isnan(s) and s > -math.inf}
    if not finite:
        return None
    best = max(finite.values())
    top = [label for label, s in finite.items() if s == best]
    return top[0] if len(top) == 1 else None


def _logsumexp(values: list[float]) -> float:
    peak = max(values)
    if peak == -math.inf:
        return peak
    return peak + math.log(sum(math.exp(v - peak) for v in values))


def perplexity_score(logprob: float, tokens: int) -> float:
    """The score of one option under CMMLU's perplexity strategy: the mean log-probability per token of the
    question followed by the option, ``-log(perplexity)`` (the highest score is the lowest perplexity).

    ``tokens`` counts every scored token of the text; ``NaN`` when there is none.
    """
    return logprob / tokens if tokens > 0 else math.nan


_ITEM_MARK = re.compile(r"^\s*(?:[-*•]|\(?\d{1,2}[.、)）:：]|[（(]\d{1,2}[)）]|第\d{1,2}[位名]?[.、:：]?)\s*")


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().strip("。.;；").lower()


def instructed_scores(output: str, options: Mapping[str, str]) -> dict[str, float]:
    """Scores from a model asked to rank the options in words (Xiezhi's API models): one option a line.

    Each line (its list mark such as ``1.`` or ``-`` dropped) is the option whose text it is, or else
    the longest option text it contains; an option counts at its first line. The first option listed
    scores ``-1``, the next ``-2``...; options never listed score ``-(n + 1)`` for ``n`` options and share
    the worst rank (:func:`ranks` is pessimistic on ties), so a reply that lists nothing ranks the gold
    option last.
    """
    plain = {label: _plain(text) for label, text in options.items()}
    order: list[str] = []
    for line in output.splitlines():
        item = _plain(_ITEM_MARK.sub("", line))
        if not item:
            continue
        exact = [label for label, text in plain.items() if text == item]
        inside = sorted((label for label, text in plain.items() if text and text in item), key=lambda k: -len(plain[k]))
        found = exact[0] if exact else (inside[0] if inside else None)
        if found is not None and found not in order:
            order.append(found)
    listed = {label: -float(position) for position, label in enumerate(order, start=1)}
    unlisted = -float(len(options) + 1)
    return {label: listed.get(label, unlisted) for label in options}


def normalised_score(logprob: float, tokens: int, text: str, rule: RankNorm) -> float:
    """One option's score under ``rule`` (:data:`RankNorm`) from the summed log-probability of its ``tokens``
    tokens and its ``text``. An empty option (a CMMLU cell left blank) divides by 1: its score stays a number."""
    if rule == "sum":
        return logprob
    length = tokens if rule == "mean-token" else len(text)
    return logprob / max(length, 1)


_NO_SPACE_AFTER = 0x2E80
"""From here on (CJK radicals, kana, ideographs, full-width forms) text runs on without spaces."""


def option_continuation(context: str | Sequence[Mapping[str, str]], text: str) -> str:
    """The continuation scored for an option's ``text`` after ``context``: the text itself after a line break,
    a space or a CJK character (Xiezhi's ``### 答案:\\n{answer}``, a Chinese ``答案是：``), or after a chat turn;
    ``" " + text`` after any other character (lm-evaluation-harness's ``target_delimiter`` after ``Answer:``)."""
    if not isinstance(context, str) or not context:
        return text
    last = context[-1]
    return text if last.isspace() or ord(last) >= _NO_SPACE_AFTER else " " + text
