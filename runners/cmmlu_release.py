"""CMMLU's released scoring path, ported rule for rule, for figures comparable with the paper's.

The release (github.com/haonan-li/CMMLU, ``src/mp_utils.py``) writes one ``results_<subject>.csv`` per
subject (the test rows, no header, then the model's ``response``) and ``get_results`` scores the folder:

* ``extract_choice`` reads a letter from each response: the first character when it is a letter; then
  twelve "answer is X" forms, the first that matches anywhere wins; then "X ... 当选 / 正确", taking the
  *last* letter before the first such word; then the weak ``[^不]是 X``; then a response naming exactly one
  letter. Failing all, the release draws a random letter (``random.randint``), so its figure on free-form
  answers changes from run to run; :func:`release_choice` draws only when given a generator, and k12eval's
  own extractor never guesses (:mod:`runners.extraction.choice`).
* A subject's accuracy is the share of its rows whose letter is the gold one, in percent.
* A category's score is the unweighted mean of its subjects' accuracies, subjects from ``categories.py``
  (a subject can sit in two: the China-specific ones); ``Overall`` is the mean over subjects. A subject
  whose result file is missing is warned about and then *counted as 0* (``all_acc`` is a
  ``defaultdict(float)`` read for every member of every category), in its categories and in ``Overall``:
  on a partial folder the release prints lower figures than the accuracy over the subjects asked, which is
  what k12eval's ``cmmlu_categories`` table gives (its ``asked / in bank`` row says how many).

Written from the release's code, which has no licence file of its own (the data is CC BY-NC-SA 4.0): the
rules are restated here, not copied. ``tests/runners/test_cmmlu_release.py`` checks them against the released
``mp_utils.py`` itself when ``$K12EVAL_CMMLU_RELEASE`` names a clone.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping

from kg.importers._cmmlu_subjects import CATEGORIES, SUBJECTS

CHOICES = ("A", "B", "C", "D")
_L = "([ABCD])"
_SINGLE = (
    (rf"答案(选项)?(是|为)：? ?{_L}", 3),
    (rf"答案(是|为)选项 ?{_L}", 2),
    (rf"故?选择?：? ?{_L}", 1),
    (rf"{_L} ?选?项(是|为)?正确", 1),
    (rf"正确的?选项(是|为) ?{_L}", 2),
    (rf"答案(应该)?(是|为){_L}", 3),
    (rf"选项 ?{_L} ?(是|为)?正确", 1),
    (rf"选择答案 ?{_L}", 1),
    (rf"答案?：?{_L}", 1),
    (rf"{_L}(选?项)?是?符合题意", 1),
    (rf"答案选项：? ?{_L}", 1),
    (rf"答案(选项)?为(.*?){_L}", 3),
)
"""Stage 1, in the release's order: (pattern, group of the letter)."""
_RECURSIVE = (rf"{_L}(.*?)当选", rf"{_L}(.*?)正确")
"""Stage 2: the first match, then matched again from its second character on, while it still matches."""
_WEAK = rf"[^不]是：? ?{_L}"
_ONLY = rf"^[^ABCD]*{_L}[^ABCD]*$"


def release_choice(response: object, rng: random.Random | None = None) -> str | None:
    """The letter CMMLU's ``extract_choice`` reads from ``response`` (``str()`` of it, as the release does:
    a blank CSV cell arrives as NaN, read as ``"nan"``); ``None`` where the release would draw a random
    letter, unless ``rng`` is given to draw it (``rng.randint(0, 3)``, as the release calls ``random``)."""
    text = str(response)
    if text[:1] in CHOICES:
        return text[0]
    for pattern, group in _SINGLE:
        match = re.search(pattern, text, re.M)
        if match:
            return match.group(group)
    for pattern in _RECURSIVE:
        match = re.search(pattern, text, re.M)
        if match:
            letter = match.group(1)
            while match:
                letter = match.group(1)
                match = re.search(pattern, match.group(0)[1:], re.M)
            return letter
    match = re.search(_WEAK, text, re.M) or re.match(_ONLY, text)
    if match:
        return match.group(1)
    return CHOICES[rng.randint(0, 3)] if rng is not None else None


def release_accuracy(rows: Iterable[tuple[str, object]], rng: random.Random | None = None) -> float:
    """A subject's accuracy in percent, as ``get_results`` computes it, over ``(gold, response)`` rows."""
    hits = [release_choice(response, rng) == gold for gold, response in rows]
    if not hits:
        raise ValueError("a subject with no rows has no accuracy")
    return 100 * sum(hits) / len(hits)


def category_members() -> dict[str, list[str]]:
    """``category2subject`` of ``mp_utils.py``: each category's subjects, a subject once per subcategory in it."""
    return {
        category: [key for key, (_, subs) in SUBJECTS.items() for sub in subs if sub in members]
        for category, members in CATEGORIES.items()
    }


def release_scores(subject_accuracy: Mapping[str, float]) -> dict[str, float]:
    """What ``get_results`` prints: each category and ``Overall`` from subject accuracies (percent), a subject
    without a result file counted as 0 in both (the release's ``defaultdict``; see the module docstring)."""
    accuracy = {key: subject_accuracy.get(key, 0.0) for key in SUBJECTS}
    printed = {
        category: sum(accuracy[key] for key in keys) / len(keys) for category, keys in category_members().items()
    }
    printed["Overall"] = sum(accuracy.values()) / len(accuracy)
    return printed
