"""Verdicts on the options of a choice question, read from the steps and checked against the gold answer.

Small models answer a choice question option by option: they restate an option, comment on it, and
give it a verdict (``这个说法是正确的``, ``因此，这个选项不符合题意``). With the gold answer
known, each verdict is right or wrong: in a question that asks for what is right (``下列说法正确的是``)
the gold options are true statements and the others false; in one that asks for what is wrong
(``下列说法错误的是``, ``不属于``) the other way round. The first step that gives an option the wrong
verdict is where the solution goes wrong, whatever kind of error led there (a false fact, a misread
option, a reason that does not follow).

Which option a step speaks of: the option it names (``A.``, ``选项A``, ``A选项``, ``（A）`` at its head,
or ``A`` with a verdict right after), else the last option named in an earlier step. Verdict words are
matched in a fixed list; a step with none, or with both kinds, gives no verdict. The final choice
(``故选C``) is not a verdict here: the ``reference`` detector checks it against the gold answer, and a
step flagged by both would count twice. Nothing is executed.

A step may also take an option's side without naming it: it states the option's own words as a fact
(``滤液中一定有铜和锌`` for option A ``滤渣中一定有铜和锌``; ``应采用的收集方法是向上排空气集气法``).
:func:`asserted_options` reads that as choosing the option: a step whose Chinese words cover most of
one option's (those the stem does not have too), while it comments on another option or on none, and
gives no verdict of its own. A step next to one that states another option is a list of the options
(the question restated), not a claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from reasoning_metrics.split import CJK_RANGE
from runners.extraction.markers import CHOSEN_LETTER

OPTION_LINE = re.compile(r"(?m)^\s*([A-H])\s*[.．、:：]\s*\S")
NEGATIVE_STEM = re.compile(
    r"(错误|不正确|不合理|不恰当|不属于|不是|不能|不可能|不符合|不相符|不科学|不包括|不同于|有误|不妥|不对)"
    r"[^，。,.]{0,6}(是|为|的是|的一项|一组|选项)?\s*[（(]"
)
"""A stem that asks for the wrong / non-member option: the negation right before the answer blank."""

_HEAD = re.compile(
    r"^\s*(?:\d{1,2}\s*[.．、]\s*)?[-*•]?\s*(?:\*\*)?\s*"
    r"(?:选项\s*([A-H])|([A-H])\s*选项|[（(]\s*([A-H])\s*[)）]|([A-H])\s*[.．、:：])"
)
"""An option named at a step's head, after an optional list number (``1. **选项A：...**``)."""
_EMPHASIS = re.compile(r"\$*\s*\\dot\s*\{\s*([^{}\s])\s*\}\s*\$*")
"""CK12 stems stress a negation with dots under its characters: ``$$\\dot{错}\\dot{误}$$`` is 错误."""
_BARE = re.compile(
    r"^[\s\-*•]*(?:这|这个|该)?(?:选项|说法|描述|叙述|表述|方程|过程|方法|操作)?(?:是|也是)?\S{0,3}[。.！!]?\s*$"
)
"""A verdict with nothing else in it (``这是正确的。``, ``- 这个说法是正确的。``)."""
_NAMED = re.compile(r"选项\s*([A-H])|([A-H])\s*选项|([A-H])\s*项")
_CHOOSE = re.compile(r"符合题意|符合题目(?:的)?要求|符合要求|是正确答案|是正确的选项|是正确选项|是答案|应该选|可以选")
_REJECT = re.compile(r"不符合题意|不符合题目(?:的)?要求|不符合要求|不是正确答案|不是答案|排除|不能选|不应该选|不选")
_TRUE = re.compile(
    r"(?<![不])(?:说法|描述|叙述|表述|判断|观点|结论)?(?:是)?正确(?:的)?(?:[。，,.！!；;]|$)|(?<![不])是对的|(?<!不)成立"
)
_FALSE = re.compile(
    r"(?:说法|描述|叙述|表述|判断|观点|结论)?(?:是)?(?:错误|不正确|不对|不成立)(?:的)?(?:[。，,.！!；;]|$)"
)
_HAS = re.compile(r"(?:因此|所以|故|则|说明|可见|这)[^，。,.；;]{0,8}?(?<![不没])(?:符合|属于|满足|能够|可以)")
_HAS_NOT = re.compile(r"(?:因此|所以|故|则|说明|可见|这)[^，。,.；;]{0,8}?(?:不符合|不属于|不满足|不能|不可以|没有)")
"""The option has (or lacks) what the question asks for, said in the question's own terms after a
conclusion word (``因此不符合绿色化学的核心``, ``因此不属于气体``): a statement about the option, so
read as its truth, turned round for a question asking for what is wrong."""
_CONCLUDES = re.compile(r"^\s*[-*•]?\s*(?:因此|所以|故|因而|综上|由此可见|可见)")


@dataclass(frozen=True)
class WrongVerdict:
    """A step that gives an option the verdict the gold answer rules out."""

    step: int
    option: str
    said: str
    """``chosen`` or ``rejected``: what the step made of the option; ``stated`` when it states the option's
    words as a fact (:func:`asserted_options`)."""


def options_of(problem: str) -> list[str]:
    """The option letters of a question written as its stem then ``A. text`` lines."""
    return list(dict.fromkeys(m.group(1) for m in OPTION_LINE.finditer(problem)))


def asks_for_wrong(problem: str) -> bool:
    """Whether the stem asks for the false / non-member option (``下列说法错误的是（ ）``)."""
    stem = OPTION_LINE.split(problem, maxsplit=1)[0]
    return bool(NEGATIVE_STEM.search(_EMPHASIS.sub(r"\1", stem)))


def gold_letters(answer: str, letters: list[str]) -> set[str]:
    """The option letters of a gold answer (``C``, ``AC``, ``['A', 'C']`` written as text)."""
    found = set(re.findall(r"[A-H]", answer.upper()))
    return found if found and found <= set(letters) else set()


def wrong_verdicts(problem: str, steps: Sequence[str], answer: str) -> list[WrongVerdict]:
    """Every step whose verdict on an option disagrees with the gold answer, in step order."""
    letters = options_of(problem)
    gold = gold_letters(answer, letters)
    if len(letters) < 2 or not gold:
        return []
    negative = asks_for_wrong(problem)
    current: str | None = None
    head_at: int | None = None  # the step that named the current option at its head
    found: list[WrongVerdict] = []
    for i, step in enumerate(steps):
        text = step[:2000]  # verdicts are short; a runaway step is not read whole
        chosen = CHOSEN_LETTER.search(text)
        if chosen and chosen.group(1) in letters:
            # The final choice (故选A) against the gold answer is the reference detector's "answer"
            # finding; flagged here too, one step would count twice in the aggregate and the combiner.
            current, head_at = chosen.group(1), None
            continue
        head = _HEAD.match(text)
        named = [g for m in _NAMED.finditer(text) for g in m.groups() if g]
        if len(set(named)) > 1:
            current, head_at = None, None  # a step comparing options gives no single verdict
            continue
        if head:
            current, head_at = next(g for g in head.groups() if g), i
        elif named:
            current, head_at = named[0], None
        if current is None or current not in letters:
            continue
        verdict = _verdict(text, negative)
        if verdict is None:
            continue
        if (verdict == "chosen") != (current in gold):
            found.append(WrongVerdict(_reason_step(steps, i, head_at), current, verdict))
    return found


def _reason_step(steps: Sequence[str], i: int, head_at: int | None) -> int:
    """Where a wrong verdict went wrong: a bare conclusion (``因此，这个选项不符合题目的要求``) or a verdict with
    nothing else in it (``这是正确的。``) rests on the step before it when that step comments on the same
    option (it is not the option's own line)."""
    if i > 0 and head_at is not None and head_at < i - 1:
        head = steps[i][:40]
        if _CONCLUDES.match(head) or _BARE.match(_verdict_words.sub("", head)):
            return i - 1
    return i


_verdict_words = re.compile(r"(?:不)?(?:正确|错误|对的|不对|成立|符合题意)(?:的)?")


def _verdict(text: str, negative: bool) -> str | None:
    """``chosen``, ``rejected`` or ``None`` (no verdict, or both kinds of words)."""
    if _REJECT.search(text):
        answer = "rejected"
    elif _CHOOSE.search(text):
        answer = "chosen"
    else:
        answer = None
    truth = None
    if _FALSE.search(text) or _HAS_NOT.search(text):
        truth = False
    elif _TRUE.search(text) or _HAS.search(text):
        truth = True
    if answer is not None:
        return answer
    if truth is None:
        return None
    # A statement called true is chosen when the question asks for what is right, rejected when it asks
    # for what is wrong.
    return "chosen" if truth != negative else "rejected"


OPTION_WORDS_SHARE = 0.7
"""A step states an option when it holds at least this share of the option's Chinese character pairs."""
MIN_OPTION_PAIRS = 4
"""Options with fewer Chinese character pairs (not in the stem) than this are too short to be recognised."""
_OPTION_SPLIT = re.compile(r"(?m)^\s*([A-H])\s*[.．、:：]\s*")
_HAN_RUN = re.compile(f"[{CJK_RANGE}]+")
_ABOUT = re.compile(r"选项|说法|描述|叙述|表述|题目|题中|问题|我们|分析|确定")
"""Words of a step that talks about the question or an option rather than stating a fact."""


def _han_pairs(text: str) -> set[str]:
    """Consecutive pairs of Chinese characters within each run of them."""
    return {run[k : k + 2] for run in _HAN_RUN.findall(text) for k in range(len(run) - 1)}


def option_texts(problem: str) -> dict[str, str]:
    """Letter -> text of each option written as an ``A. text`` line."""
    parts = _OPTION_SPLIT.split(problem)
    return {parts[k]: parts[k + 1].strip() for k in range(1, len(parts) - 1, 2)}


def asserted_options(problem: str, steps: Sequence[str], answer: str) -> list[WrongVerdict]:
    """Steps that state, as a fact, the words of an option the gold answer rules out (of the gold option when
    the stem asks for the wrong one), while not commenting on that option (see the module doc)."""
    texts = option_texts(problem)
    letters = list(texts)
    gold = gold_letters(answer, letters)
    if len(letters) < 2 or not gold:
        return []
    negative = asks_for_wrong(problem)
    stem = _han_pairs(OPTION_LINE.split(problem, maxsplit=1)[0])
    words = {k: _han_pairs(v) - stem for k, v in texts.items()}
    words = {k: v for k, v in words.items() if len(v) >= MIN_OPTION_PAIRS}
    stated: list[str | None] = []
    about: list[str | None] = []
    current: str | None = None
    for step in steps:
        text = step[:2000]
        head = _HEAD.match(text)
        named = [g for m in _NAMED.finditer(text) for g in m.groups() if g]
        if head:
            current = next(g for g in head.groups() if g)
        elif named:
            current = named[0]
        about.append(current)
        pairs = _han_pairs(text)
        covering = [k for k, v in words.items() if len(v & pairs) >= OPTION_WORDS_SHARE * len(v)]
        claim = not (head or CHOSEN_LETTER.search(text) or _ABOUT.search(text) or _verdict(text, negative))
        stated.append(covering[0] if len(covering) == 1 and claim else None)
    found = []
    for i, option in enumerate(stated):
        if option is None or option == about[i] or (option in gold) != negative:
            continue
        listing = any(0 <= j < len(stated) and stated[j] not in (None, option) for j in (i - 1, i + 1))
        if not listing:
            found.append(WrongVerdict(i, option, "stated"))
    return found
