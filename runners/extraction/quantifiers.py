"""Verdicts a judgment answer gives to all its statements at once, or to the ones it has not named.

A quantifier over all statements ("以上说法都正确", "全都错误", "四个说法全对", "均正确", "所有说法都是错误的") gives
each the verdict after it, a negated verdict its opposite as usual ("都不正确", "都没有错"); "none is" ("没有一个说法是
正确的", "没有一个是错误的", "没有正确的", "无一正确") gives each the opposite of the verdict it denies. "The others"
("其余错误", "其他都错", "其余的说法是对的", "剩下的都错") give theirs to the statements no label names.

Only at the start of a clause (after punctuation, a line break, "所以", "综上所述，"), never after a statement's label
("1. 没有错": statement 1's verdict), and never after 不 or 并非 ("不都正确", "并非都是错误的": not all, no verdict).
A group's "①③都正确" is the group's (:mod:`runners.extraction.verdicts`). Where the count named is not the statements'
("三个说法都正确" of four) the caller reads no answer.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from runners.extraction.verdicts import after_label, number, verdicts

_CLAUSE = r"(?<![^\s,.;:!?。、()\[\]])"  # the start, a space, punctuation
_CLAUSE_ENDS = frozenset("\n,.;:!?。、()[]")
_ = r"[ \t]?"  # one space at most between words: runs of optional spaces backtrack without end on a long blank
_LEAD = rf"(?:(?:所以|因此|因而|故|总之|综上所述|综上|由此可见|可见|即|则),?{_})?"
_WHICH = rf"(?:(?:以上|上述|上面|前面|所有|全部|题中|这些|这(?={_}(?:[一二两三四五六七八九十\d]|几))){_}的?{_})?"
_COUNT = rf"(?:(?:(?P<count>[一二两三四五六七八九十]|\d{{1,2}}){_}[个条句项道种]|几个|各个|每个|每一个){_}的?{_})?"
_NOUN = r"(?:说法|命题|判断|陈述|表述|描述|叙述|做法|观点|句子|句话|小题|题目|选项|它们|二者|两者|三者|四者)"
_ALL = rf"(?:全都|全部都|全部|都|均|全|皆|一律|统统){_}(?:(?:是|为){_})?"
_SOME = r"(?:一个|一条|一项|一句|一种|任何一个|任何|哪个|哪一个|一)"
_UNIVERSAL = re.compile(rf"{_CLAUSE}{_LEAD}{_WHICH}{_COUNT}(?:{_NOUN}{_})?{_ALL}")
_NONE = re.compile(
    rf"{_CLAUSE}{_LEAD}(?P<subject>{_WHICH}{_COUNT}(?:{_NOUN}{_})?(?:(?:中|当中|里){_})?)(?:没有|并没有|无){_}"
    rf"(?:(?P<some>{_SOME}){_})?(?:(?P<noun>{_NOUN}){_})?(?:(?:是|为){_})?"
)
_OTHERS = re.compile(
    rf"{_CLAUSE}{_LEAD}(?:其余|其他|其它|剩下|剩余|余下|另外){_}(?:的{_})?{_COUNT}(?:{_NOUN}{_})?(?:也{_})?(?:{_ALL})?"
    rf"(?:(?:是|为){_})?"
)


class Quantified(NamedTuple):
    value: bool | None
    """``None``: a hedge denied, no verdict ("没有一个说法是完全正确的")."""
    start: int
    end: int
    others: bool
    """The statements no label names ("其余错误"); else every statement."""
    counted: int | None
    """The count it names ("四个说法全对": 4), if any."""


def quantified(text: str, label_ends: frozenset[int]) -> list[Quantified]:
    """Every verdict of ``text`` for all statements or the others, in order; ``label_ends``: where labels end."""
    out = []
    for pattern, others in ((_UNIVERSAL, False), (_NONE, False), (_OTHERS, True)):
        for m in pattern.finditer(text):
            blank = at = m.start()
            while blank and text[blank - 1] in " \t":
                blank -= 1
            if blank and text[blank - 1] not in _CLAUSE_ENDS:
                continue  # "因而 $$A、B、D$$ 均错误": a masked formula's spaces before it, no clause start
            if after_label(text, at, label_ends):
                continue  # "1. 没有错": the label's verdict
            verdict = _verdict_at(text, m.end(), hedged=pattern is _NONE)
            if verdict is None:
                continue
            value, end = verdict
            if pattern is _NONE:
                subject = m["subject"].strip(" 的中当里")
                if not (subject or m["some"] or m["noun"] or text[end : end + 1] == "的"):
                    continue  # "没有错": a negated verdict, no quantifier ("没有正确的" is one)
                value = None if value is None else not value
            count = m["count"]
            out.append(Quantified(value, m.start(), end, others, number(count) if count else None))
    return sorted(out, key=lambda q: q.start)


def _verdict_at(text: str, at: int, hedged: bool) -> tuple[bool | None, int] | None:
    """The verdict that starts at ``at``, read alone (a 没有 before it belongs to the quantifier), and its end; with
    ``hedged``, ``None`` for a verdict word a few characters on ("完全正确", "一定正确"): a hedge to deny."""
    tail = text[at : at + 24]
    found = verdicts(tail, 0, len(tail), frozenset())
    if found and found[0].start == 0:
        return found[0].value, at + found[0].end
    if hedged and found and found[0].start <= 4 and not re.search(r"[^\w ]", tail[: found[0].start]):
        return None, at + found[0].end
    return None
