"""Verdicts a judgment answer gives to all its statements at once, or to the ones it has not named.

A quantifier over all statements ("以上说法都正确", "全都错误", "四个说法全对", "均正确", "所有说法都是错误的", "都错了", "All four statements are
true", "They are all false"; never "they are all correct computations", an adjective) gives each the verdict after it,
a negated verdict its opposite as usual ("都不正确", "都没有错"); "none is" ("没有一个说法是正确的", "没有一个是错误的", "没有正确的", "无一正确",
"一个正确的都没有", "正确的一个也没有", "一个也不对", "None of them is true") gives each the opposite of the verdict it denies, or the
negated verdict it states ("一个也不对": each false). "The others" ("其余错误", "其他都错", "其余的说法是对的", "剩下的都错") give theirs to the
statements no label names; "only" ("只有②正确", "上述四个说法中只有第2个是错误的", "Only statement 2 is true") gives the statements it
names the verdict, the others its opposite (never a condition: "只有①正确，②才成立", "Only statement 2 is true if …").

Only at the start of a clause (after punctuation, a line break, "所以", "综上所述，", or a stance of the answer's own:
"我认为", "可以判断", "因此我们可以得出"; never "你可能认为", "有人认为", "如果"), never after a statement's label ("1. 没有错":
statement 1's verdict), and never after 不 or 并非 ("不都正确", "并非都是错误的", "Not all are true": not all, no
verdict). A group's "①③都正确" is the group's (:mod:`runners.extraction.verdicts`). Where the count named is not the
statements' ("三个说法都正确" of four) the caller reads no answer. A question is none ("一个正确的都没有吗？",
"All four statements are true?"). An exception ("除①外，以上说法都正确", "除了第2个，其余都对", "except statement 2")
is none: 除了…都 excludes, 除了…也 adds, and the answer is left unread.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from runners.extraction.verdicts import EN_BEFORE_NOUN, EN_ORDINAL, Label, after_label, number, verdicts

_CLAUSE = r"(?<![^\s,.;:!?。、()\[\]])"  # the start, a space, punctuation
_CLAUSE_ENDS = frozenset("\n,.;:!?。、()[]")
_ = r"[ \t]?"  # one space at most between words: runs of optional spaces backtrack without end on a long blank
_STANCE = (
    rf"(?:(?:我们?|笔者){_})?(?:(?:可以|能够?|就){_})?(?:认为|觉得|判断|断定|确定|得出|看出|可知|可得|知道|发现)(?:出)?"
    r"|(?:答案|结论|结果)(?:是|为)"
)
_EN_LEAD = (
    r"(?i:(?:so|therefore|thus|hence|overall|in conclusion|in summary|in short),?\s+)?"
    r"(?i:(?:i|we)\s+(?:think|believe|conclude|can\s+(?:see|conclude))(?:\s+that)?\s+)?"
)
_LEAD = (
    rf"(?:(?:所以|因此|因而|故|总之|综上所述|综上|由此可见|由此可知|可见|即|则),?{_})?(?:(?:{_STANCE}),?{_})?{_EN_LEAD}"
)
_WHICH = (
    rf"(?:(?:以上|上述|上面|前面|所有|全部|题中|这些|这(?={_}(?:[一二两三四五六七八九十\d]|几))"
    rf"|(?:本题|此题|该题|这道题|题目|题干)(?:中|里)?(?:给出|所给)?|所给|给出){_}的?{_})?"
)
_COUNT = rf"(?:(?:(?P<count>[一二两三四五六七八九十]|\d{{1,2}}){_}[个条句项道种]|几个|各个|每个|每一个){_}的?{_})?"
_NOUN = r"(?:说法|命题|判断|陈述|表述|描述|叙述|做法|观点|句子|句话|小题|题目|选项|它们|二者|两者|三者|四者)"
_SUBJECT = rf"(?P<subject>{_WHICH}{_COUNT}(?:{_NOUN}{_})?(?:(?:中|当中|里|之中){_})?)"
_ALL = rf"(?:全都|全部都|全部|都|均|全|皆|一律|统统){_}(?:(?:是|为){_})?"
_SOME = r"(?:一个|一条|一项|一句|一种|任何一个|任何|哪个|哪一个|一)"
_WORD = r"(?P<word>不正确|不对|正确|错误|对|错)"
_EN_COUNT = r"(?P<en_count>two|three|four|five|six|seven|eight|nine|ten|\d{1,2})"
_UNIVERSAL = re.compile(
    rf"{_CLAUSE}{_LEAD}(?:{_WHICH}{_COUNT}(?:{_NOUN}{_})?{_ALL}"
    rf"|(?i:(?:all|both)(?:\s+of)?(?:\s+(?:the|these|them))?(?:\s+{_EN_COUNT})?(?:\s+(?:statements|claims|of\s+them))?"
    r"\s+(?:are|is)\s+|(?:they|these|the\s+statements|these\s+statements|the\s+claims)\s+are\s+(?:all|both)\s+))"
)
_NONE = re.compile(
    rf"{_CLAUSE}{_LEAD}(?:{_SUBJECT}(?:没有|并没有|无){_}(?:(?P<some>{_SOME}){_})?(?:(?P<noun>{_NOUN}){_})?"
    rf"(?:(?:是|为){_})?"
    rf"|(?i:none\s+of\s+(?:the|these|them)(?:\s+{_EN_COUNT})?(?:\s+(?:statements|claims))?\s+(?:is|are)\s+))"
)
# "一个正确的都没有", "正确的一个也没有": the verdict word before the denial (as a verdict it stands at no clause end).
_NONE_WORD = re.compile(
    rf"{_CLAUSE}{_LEAD}{_SUBJECT}(?:(?:连{_})?一个{_}(?:是{_})?{_WORD}{_}的{_}(?:{_NOUN}{_})?"
    rf"|{_WORD.replace('word', 'word2')}{_}的{_}(?:{_NOUN}{_})?(?:连{_})?一个{_})(?:都|也){_}没有"
)
# asked, not said: "一个正确的都没有吗？" (its verdict came before the 没有 asked), "只有②是正确的？"
_ASKED = re.compile(r"[ \t]*(?:[的了][ \t]*)?(?:[吗呢吧么]|\?)")
_NOT_ONE = re.compile(rf"{_CLAUSE}{_LEAD}{_SUBJECT}(?:连{_})?一个{_}(?:{_NOUN}{_})?(?:都|也){_}(?=不|没|并不|并非)")
_OTHERS = re.compile(
    rf"{_CLAUSE}{_LEAD}(?:其余|其他|其它|剩下|剩余|余下|另外){_}(?:的{_})?{_COUNT}(?:{_NOUN}{_})?(?:也{_})?(?:{_ALL})?"
    rf"(?:(?:是|为){_})?"
)
_ONLY = re.compile(rf"{_CLAUSE}{_LEAD}{_SUBJECT},?{_}(?:只有|仅有|只|仅|(?i:only\s+(?:the\s+)?))")
# "只有②是正确的", "只有第二个说法才是正确的" (才 stresses the one named), "Only statement 2 is true"
_ONLY_VERB = re.compile(rf"(?i:\s+(?:is|are)\s+)|{_}(?:[个句种条]{_})?(?:说法{_}|命题{_})?(?:才{_})?(?:(?:是|为){_})?")
# after "only"'s verdict in its sentence: a condition ("只有①正确，②才成立", "Only statement 2 is true if …")
_CONDITION = re.compile(r"才|(?i:\b(?:if|when|unless|provided)\b)")
_EXCEPT = re.compile(rf"(?:(?<![排删去消剔整扣])除了?|(?i:\bexcept(?:\s+for)?\s+(?:the\s+)?)){_}(?:说法{_})?")
_EN_ORDINAL_AT = re.compile(rf"(?i:(?:{EN_ORDINAL})\b)")  # "except the first." (no label: nothing after it)
_EN_HEDGE = re.compile(r"(?i:(?:entirely|completely|necessarily|always|fully|quite|absolutely|totally)\s+)")
_PAIRS = re.compile(r"[二两三四]者|(?i:\bboth\b)")
_PAIR_COUNTS = {"二者": 2, "两者": 2, "三者": 3, "四者": 4, "both": 2}
_SENTENCE_END = re.compile(r"[。.;!?\n]|$")
_PAST = re.compile(r"[对错]了(?=[\s,.;!。]|$)")  # "都错了": 了 after 对/错 is a verdict's only here


class Quantified(NamedTuple):
    value: bool | None
    """``None``: a hedge denied, no verdict ("没有一个说法是完全正确的"), or an exception ("除①外都正确")."""
    start: int
    end: int
    others: bool
    """The statements no label names ("其余错误"), or not named by "only"; else every statement."""
    counted: int | None
    """The count it names ("四个说法全对": 4; of the others, "四个说法中只有②正确": 3), if any."""
    named: frozenset[int] = frozenset()
    """With "only": the statements it names (their own verdict, the group's, is read as usual)."""


def quantified(text: str, marks: list[Label]) -> list[Quantified]:
    """Every verdict of ``text`` for all statements or the others, in order; ``marks``: the statements' labels."""
    label_ends = frozenset(label.end for label in marks)
    out = []
    for pattern in (_UNIVERSAL, _NONE, _NONE_WORD, _NOT_ONE):
        for m in pattern.finditer(text):
            if not _starts_clause(text, m.start(), label_ends):
                continue
            if pattern is _NONE_WORD:
                if _ASKED.match(text, m.end()):
                    continue
                word = m["word"] or m["word2"]
                denied = word.endswith(("正确", "对")) and not word.startswith("不")  # the verdict "none is"
                out.append(Quantified(not denied, m.start(), m.end(), False, _count(m)))
                continue
            if pattern is _UNIVERSAL and m["count"] == "一":
                continue  # "一个都不正确": none is (below), not "each of one"
            if pattern is _UNIVERSAL and re.match(r"(?i:not)\b", text[m.end() : m.end() + 4]):
                out.append(Quantified(None, m.start(), m.end(), False, None))  # "All are not true": not all, or none
                continue
            verdict = _verdict_at(text, m.end(), hedged=pattern is _NONE)
            if verdict is None:
                continue
            value, end = verdict
            if pattern is _NONE:
                subject = (m["subject"] or "").strip(" 的中当里之")
                english = m["subject"] is None
                if not (english or subject or m["some"] or m["noun"] or text[end : end + 1] == "的"):
                    continue  # "没有错": a negated verdict, no quantifier ("没有正确的" is one)
                value = None if value is None else not value
            out.append(Quantified(value, m.start(), end, False, _count(m)))
    for m in _OTHERS.finditer(text):
        if _starts_clause(text, m.start(), label_ends):
            verdict = _verdict_at(text, m.end(), hedged=False)
            if verdict is not None:
                out.append(Quantified(verdict[0], m.start(), verdict[1], True, _count(m)))
    out += _only(text, marks, label_ends) + _exceptions(text, marks)
    return sorted(out, key=lambda q: q.start)


def _starts_clause(text: str, at: int, label_ends: frozenset[int]) -> bool:
    """``at`` starts a clause: past blanks, after a clause end or the start; never right after a label."""
    blank = at
    while blank and text[blank - 1] in " \t":
        blank -= 1
    if blank and text[blank - 1] not in _CLAUSE_ENDS:
        return False  # "因而 $$A、B、D$$ 均错误": a masked formula's spaces before it, no clause start
    return not after_label(text, at, label_ends)  # "1. 没有错": the label's verdict


def _count(m: re.Match[str]) -> int | None:
    """The count a quantifier names, in Chinese or English ("四个说法", "all four statements")."""
    count = m.groupdict().get("count") or m.groupdict().get("en_count")
    if count:
        return number(count)
    pair = _PAIRS.search(m.group())  # "两者都正确", "Both are true": two, whatever the question has
    return _PAIR_COUNTS[pair.group().lower()] if pair else None


def _only(text: str, marks: list[Label], label_ends: frozenset[int]) -> list[Quantified]:
    """ "只有②③正确": the verdict after the group is read with the group's labels; the others get its opposite, from
    a quantifier of no width right after it. Never a condition's 只有…才 ("只有①正确，②才有意义")."""
    starts = {label.start: i for i, label in enumerate(marks)}
    out = []
    for m in _ONLY.finditer(text):
        first = starts.get(m.end())
        if first is None or not _starts_clause(text, m.start(), label_ends):
            continue
        last = first
        while last + 1 < len(marks) and marks[last + 1].joined:
            last += 1
        verb = _ONLY_VERB.match(text, marks[last].end)
        verdict = _verdict_at(text, verb.end() if verb else marks[last].end, hedged=False)
        if verdict is None or verdict[0] is None or _ASKED.match(text, verdict[1]):
            continue
        end = _SENTENCE_END.search(text, verdict[1])
        if _CONDITION.search(text, verdict[1], end.start() if end else len(text)):
            continue  # "只有①正确，才能推出④": only if, a condition the answer does not assert
        named = frozenset(label.number for label in marks[first : last + 1])
        count = _count(m)
        out.append(Quantified(not verdict[0], verdict[1], verdict[1], True, count and count - len(named), named))
    return out


def _exceptions(text: str, marks: list[Label]) -> list[Quantified]:
    """ "除①外，以上说法都正确": no verdict for all (除了…也 would add, not exclude); its sentence is left unread."""
    starts = {label.start for label in marks}
    out = []
    for m in _EXCEPT.finditer(text):  # anywhere: "以上说法除①外都正确", "all are true except the first"
        if m.end() in starts or _EN_ORDINAL_AT.match(text, m.end()):
            end = _SENTENCE_END.search(text, m.end())
            out.append(Quantified(None, m.start(), end.start() if end else len(text), False, None))
    return out


def _verdict_at(text: str, at: int, hedged: bool) -> tuple[bool | None, int] | None:
    """The verdict that starts at ``at``, read alone (a 没有 before it belongs to the quantifier), and its end; with
    ``hedged``, ``None`` for a verdict word a few characters on ("完全正确", "一定正确"): a hedge to deny."""
    tail = text[at : at + 24]
    past = _PAST.match(tail)
    if past:
        return tail[0] == "对", at + past.end()
    found = verdicts(tail, 0, len(tail), frozenset())
    if found and found[0].start == 0:
        english = tail[: found[0].end].isascii()
        if english and EN_BEFORE_NOUN.match(text, at + found[0].end):
            return None  # "they are all correct computations": the computations', an adjective before its noun
        return found[0].value, at + found[0].end
    gap = tail[: found[0].start] if found else ""
    if hedged and found and (found[0].start <= 4 or _EN_HEDGE.fullmatch(gap)) and not re.search(r"[^\w ]", gap):
        return None, at + found[0].end
    return None
