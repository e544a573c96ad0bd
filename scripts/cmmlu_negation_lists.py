"""Why k12eval's CMMLU negation share is not the paper's "about 10.7 %" (#31 item 5): the share of questions
each plausible cue list finds, with its Wilson 95 % interval, on a CMMLU test folder.

The CMMLU paper names no cue words and its release (``src/``) holds no analysis code, so the paper's rule
cannot be read off; these eight lists were written down before counting and none was adjusted after (the
figure k12eval reports is the first, ``k12eval kg stats CMMLU/data/test``). docs/report.md gives the counts
on the whole released test.

    python scripts/cmmlu_negation_lists.py CMMLU/data/test
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

from kg.importers import load_questions
from kg.records import Question
from reports.analyses import has_negation, question_clause
from reports.stats import wilson_interval

_CUES = re.compile(r"不|没有|并非|除外|例外|无关|除了")
"""k12eval's Chinese cue words, without its exclusions (不同, 不变, 不等式...) and its clause rule."""

LISTS: dict[str, Callable[[Question], bool]] = {
    "k12eval: cues in the asking clause, exclusions kept": lambda q: has_negation(q.stem),
    "不 anywhere in the question": lambda q: "不" in q.stem,
    "k12eval's cues anywhere in the question": lambda q: bool(_CUES.search(q.stem)),
    "k12eval's cues or 错误 anywhere in the question": lambda q: bool(_CUES.search(q.stem)) or "错误" in q.stem,
    "不没无非未否勿莫 anywhere in the question": lambda q: bool(re.search("[不没无非未否勿莫]", q.stem)),
    "k12eval's cues in the question or its options": lambda q: bool(
        _CUES.search("\n".join([q.stem, *(o.text for o in q.options)]))
    ),
    "k12eval, or 错误 in the asking clause": lambda q: has_negation(q.stem) or "错误" in question_clause(q.stem),
    "不 in the asking clause, no exclusions": lambda q: "不" in question_clause(q.stem),
}


def main() -> None:
    """Print each list's count, share and interval over the questions of the folder."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("test", help="CMMLU's test folder (data/test of the release)")
    questions = load_questions(parser.parse_args().test).questions
    n = len(questions)
    for name, found in LISTS.items():
        k = sum(1 for q in questions if found(q))
        low, high = wilson_interval(k, n)
        print(f"{name}: {k:,}/{n:,} = {100 * k / n:.1f} % ({100 * low:.1f}-{100 * high:.1f} %)")


if __name__ == "__main__":
    main()
