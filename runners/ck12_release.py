"""CK12's released scorer, ported rule for rule, for scores comparable with the paper's.

The release (github.com/tal-tech/chinese-k12-evaluation, ``code/release_code_aaai_ck12/``) scores a
result file with ``metric.py``, which calls ``Evaluator.get_metrics`` of
``evaluators/evaluator.py`` on each line: ``retrieve_answer`` reads the answer from the response
(newlines replaced by spaces), ``compute_acc`` counts it. The two rules k12eval keeps for comparison:

* Judgment (``判断``): ``re.findall`` of ``[FT]`` over the whole response; when it finds none, of
  ``[错对]``; then of ``[×√]`` (``错``/``×`` are F, ``对``/``√`` T). Gold and found verdicts are
  ``zip``-ped: each pair is one statement counted, right when they agree. Statements beyond the
  verdicts found are not counted at all (neither right nor wrong), and a response with no verdict
  counts nothing; verdicts beyond the statements are dropped. Any capital ``T`` or ``F`` counts
  (``The`` holds a ``T``), and ``不对`` is a ``T``.
* Fill-in (``填空``): the first sentence of the response (after ``答案是：`` when it is there) must
  contain every ``;``-separated blank of the gold; with a single blank the release iterates over the
  gold's *characters* (gold ``12`` is "in" ``21``).

Measured with ``k12eval run`` on the release's ``eval_results/chatglm2_zero_shot.json`` (800 primary-
school math judgment questions, 2,939 statements) and ``report --judgment ck12-release``: 1,367 of
2,357 statements counted are right (58.0 %), as the released ``metric.py`` prints; docs/report.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_VERDICT_PATTERNS = (re.compile(r"[FT]"), re.compile(r"[错对]"), re.compile(r"[×√]"))
"""``retrieve_answer``'s judgment patterns, tried in order; the first that finds anything wins."""
_AS_TRUE = {"T": True, "F": False, "对": True, "错": False, "√": True, "×": False}
"""``compute_acc``'s ``map2TF``."""


def release_verdicts(response: str) -> list[bool]:
    """Every verdict the released scorer finds in ``response``, in order (``[]``: none)."""
    text = response.replace("\n", " ")
    for pattern in _VERDICT_PATTERNS:
        found = pattern.findall(text)
        if found:
            return [_AS_TRUE[mark] for mark in found]
    return []


def release_judgment(gold: Sequence[bool], response: str) -> tuple[int, int]:
    """How the released scorer counts ``response`` to a judgment question whose statements are ``gold``:
    ``(right, counted)``, the statements counted being ``min(statements, verdicts found)`` (0: none found)."""
    pairs = list(zip(gold, release_verdicts(response), strict=False))  # the release's zip: the shorter side decides
    return sum(g == v for g, v in pairs), len(pairs)


def release_fill_correct(gold: Sequence[str], response: str) -> bool:
    """CK12's released fill-in rule, bug included (see the module docstring)."""
    text = response.replace("\n", " ")
    match = re.search(r"答案是：(.+?)(?=[。（>]|$)", text) or re.search(r"(.+?)(?=[。（>]|$)", text)
    if match is None:
        return False
    found = match.group()
    joined = ";".join(gold)
    items: Sequence[str] = joined.split(";") if ";" in joined else joined
    return all(item in found for item in items)
