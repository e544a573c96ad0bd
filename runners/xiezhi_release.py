"""Xiezhi's released ranking metrics, ported rule for rule (github.com/MikeGu721/XiezhiBenchmark, MIT licence).

The release's ``Knowledge_Evaluator/xiezhi_evaluate.py`` writes one JSON line per question, a *check
file*: ``line_index``, ``options`` (one score per option, in the question's option order), ``labels`` (its
disciplines) and ``answer`` (the gold option's index). ``Knowledge_Evaluator/conclude.py`` scores it:

* ``get_evaluation_result_from_check_path``: the gold's 0-based rank is its position in
  ``np.argsort(options)``, ascending; each rank is filed under every label of the question and ``OVERALL``;
* ``get_mrr_result``: per label, the mean of ``1 / (rank + 1)``; ``get_hitk_result``: the share with
  ``rank < k``; both with ``np.std`` (the population standard deviation) and the count.

Which questions it asks: ``get_xiezhi`` reads the JSON lines of a task's folder and skips a question whose
answer, stripped of spaces and quotes, is none of its options (:func:`release_question`).

The direction (:data:`LATEST`): at its latest commit the evaluator stores ``-loss`` per option (higher:
more likely) and ``conclude.py`` sorts ascending, so rank 0 is the *least* likely option. The release's
earlier ``Tester/model_test.py`` (``hitk``/``mrr``) sorted descending, ``np.argsort(pred)[::-1]``
(:data:`EARLIER`), as the paper describes and as k12eval ranks (:mod:`runners.ranking`). Ties fall as
``np.argsort`` orders them (quicksort, not stable); k12eval ranks a tie pessimistically.

``tests/runners/test_xiezhi_release.py`` checks these against the released ``conclude.py`` itself when
``$K12EVAL_XIEZHI_RELEASE`` names a clone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

Direction = Literal["latest", "earlier"]
LATEST: Direction = "latest"
"""``conclude.py``: ascending, the least likely option first (given the ``-loss`` scores it is fed)."""
EARLIER: Direction = "earlier"
"""``Tester/model_test.py``: descending, the most likely option first, as the paper and k12eval rank."""
OVERALL = "OVERALL"


def _bare(text: str) -> str:
    return text.strip().strip('"').strip("'")


def release_question(line: Mapping[str, object]) -> tuple[list[str], int] | None:
    """How ``get_xiezhi`` reads one line of a Xiezhi file: its options (``\\n``-split, each stripped of spaces and
    quotes) and the gold's index among them; ``None`` when the stripped answer is no option (the release skips
    the question)."""
    options = [_bare(option) for option in str(line["options"]).split("\n")]
    answer = _bare(str(line["answer"]))
    return (options, options.index(answer)) if answer in options else None


def release_rank(scores: Sequence[float], answer: int, direction: Direction = LATEST) -> int:
    """The gold option's 0-based rank as the release computes it."""
    order = np.argsort(np.asarray(scores, dtype=float)).tolist()
    if direction == EARLIER:
        order = order[::-1]
    return int(order.index(int(answer)))


@dataclass(frozen=True)
class LabelScore:
    """One label's figure as ``conclude.py`` reports it."""

    mean: float
    std: float
    """``np.std``: the population standard deviation over the questions."""
    num: int


def label_ranks(lines: Iterable[Mapping[str, object]], direction: Direction = LATEST) -> dict[str, list[int]]:
    """``get_evaluation_result_from_check_path`` over parsed check-file lines: label -> 0-based ranks."""
    found: dict[str, list[int]] = defaultdict(list)
    for line in lines:
        scores = line["options"]
        labels = line["labels"]
        assert isinstance(scores, list) and isinstance(labels, list)
        rank = release_rank(scores, int(str(line["answer"])), direction)
        for label in labels:
            found[str(label)].append(rank)
        found[OVERALL].append(rank)
    return dict(found)


def _scored(values: list[float]) -> LabelScore:
    return LabelScore(float(np.mean(values)), float(np.std(values)), len(values))


def release_mrr(ranks: Mapping[str, Sequence[int]]) -> dict[str, LabelScore]:
    """``get_mrr_result``: per label, 1 / (rank + 1) averaged."""
    return {label: _scored([1 / (r + 1) for r in found]) for label, found in ranks.items()}


def release_hit(ranks: Mapping[str, Sequence[int]], k: int) -> dict[str, LabelScore]:
    """``get_hitk_result``: per label, the share of questions whose 0-based rank is under ``k``."""
    return {label: _scored([1.0 if r < k else 0.0 for r in found]) for label, found in ranks.items()}
