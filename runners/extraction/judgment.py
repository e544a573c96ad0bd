"""Judgment answers: one true/false per statement.

Verdict words: 对/错, 正确/错误/不正确/不对, √/×/✓/✗, T/F, true/false,
correct/incorrect/wrong, negated (不是错误的, 并非正确, 没错: the verdict stated; 不一定正确: none), only in a
verdict position (not "正确的做法是", "纠正错误", "3×4=12", "这个说法正确？"; see :mod:`runners.extraction.verdicts`),
never in a condition or its consequence ("如果①正确，那么②正确": :mod:`runners.extraction.conditions`).
They are read, in order of preference:

0. ``all``: a verdict for all the statements ("以上说法都正确", "没有一个说法是正确的", "一个正确的都没有": each
   false) goes to each, where no other verdict of the answer disagrees (:mod:`runners.extraction.quantifiers`); "the
   others" ("①③正确，其余错误") go to the statements not named before them, and "only" ("只有②正确") gives the
   others the opposite of the named ones', in ``numbered``; an exception ("除①外都正确") leaves the answer unread;
1. ``numbered``: each verdict goes to the statement whose label comes last before it, in whatever order the
   answer discusses them ("1. 对 2. 错", "(1)√(2)×", "①错③对②对", "第3个说法错误，第1个说法正确", "说法三错误",
   "A. 错误"; labels: :mod:`runners.extraction.verdicts`); a group's verdict goes to each statement of it ("①③正确",
   "第1、3个说法正确", "1和3对"). Every statement needs its verdict, one only (a number
   named twice with two verdicts is no answer); numbers past the statements are ignored after all of theirs
   (CK12's prompt asks for "1.  2.  3." whatever the count, and the release reads the first n) and leave the answer
   unread before or among them. An answer that labels its verdicts but not one per statement is never read by the
   text's order (rules 3-5), except with one statement, where numbered steps that all agree name nothing to mix up;
2. ``compact``: the first verdicts are one run of as many T/F letters, or 对/错 characters, as statements
   ("TTTT" or "对错错对", then an explanation that says 正确 and 错误 again);
3. ``sequence``: as many verdicts as statements, in order ("TFFT", "√×√", "错误，正确", "对错错对");
4. ``leading`` (one statement): the output starts with a verdict;
5. ``agreeing`` (one statement): every verdict in the output agrees.

0/1 answers ("1 0 0 1") are read as T/F only with a legend in the answer or the stem ("1表示正确，0表示错误";
:mod:`runners.extraction.legend`). Each is tried on the text after the last answer marker ("答案是：", "answer:") first,
then on the whole output. Phrases that contain verdict characters without being one
("正确答案", "判断正误", "判断对错", "对于", "是否正确", "是不是正确", "对不对") are blanked first. 对 and 错 run together ("对错错对") are
one verdict each only where the run stands apart: after the start, a line break or punctuation, before the end,
a line break or punctuation other than a colon; so the instruction's "判断下列说法的对错", a heading "对错：",
an echoed "（对错）" and words such as 对顶角 or 错角 are never verdicts. A count of verdicts other than the
statements' is no answer (never the first or last few of them).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from runners.extraction.conditions import conditions, in_condition
from runners.extraction.legend import with_legend
from runners.extraction.markers import ANSWERS_ARE_COLON
from runners.extraction.quantifiers import Quantified, quantified
from runners.extraction.text import Found, View
from runners.extraction.verdicts import Label, labels, verdicts

_NOT_VERDICTS = re.compile(
    r"正确答案|正确选项|正确的(?:回答|答案|顺序)|判断正误|判断对错|正误|对错|是否正确|是否对|正确与否|正确或(?:者)?错误"
    r"|对或错|不错|是不是(?:正确|错误|对|错)|(?:对|正确)不(?:对|正确)|错没错|有没有错"
    r"|对于|对应|对称|对比|对象|对待|对方|相对|绝对|针对|面对|反对|核对|错过|(?i:true or false|correct or wrong)"
)
_COMPACT = re.compile(r"(?<![A-Za-z])[TF]{2,}(?![A-Za-z])")
_CHINESE_RUN = re.compile(r"[对错]{2,}")
_OPENS_RUN = frozenset("\n:,.;、。")  # what a run of 对/错 may follow (width-folded: ：，；．)
_CLOSES_RUN = frozenset("\n,.;、。!")  # what may follow it: not a colon ("对错：" heads what follows), nor "?"


def extract_judgment(view: View, statements: int, stem: str = "") -> Found | None:
    """One bool per statement (``statements`` of them), or ``None``; ``stem``: the question's, for a 0/1 legend."""
    window = view.raw[view.start : view.start + len(view.text)]
    masked = with_legend(view.masked, window, stem)  # "1表示正确，0表示错误：1 0 0 1" as "T F F T"
    markers = list(ANSWERS_ARE_COLON.finditer(masked))  # before "正确答案" is blanked below
    runs = _chinese_runs(masked)  # "判断对错：对错错对": the phrase's 对错 is blanked, the run's kept
    starts = [start for start, _ in runs]

    def blank(match: re.Match[str]) -> str:
        run = bisect_right(starts, match.start()) - 1
        kept = run >= 0 and match.start() < runs[run][1]
        return match.group() if kept else " " * len(match.group())

    text = _NOT_VERDICTS.sub(blank, masked)
    windows = [markers[-1].end()] if markers else []
    for begin in [*windows, 0]:
        found = _read(text, window, begin, statements, [(s - begin, e - begin) for s, e in runs if s >= begin])
        if found:
            return found
    return None


def _chinese_runs(text: str) -> list[tuple[int, int]]:
    """Where 对 and 错 stand run together as verdicts, apart from the words and any colon around them."""
    out = []
    for match in _CHINESE_RUN.finditer(text):
        before, after = match.start() - 1, match.end()
        while before >= 0 and text[before] in " \t":  # a step per space: never a copy of the text
            before -= 1
        while after < len(text) and text[after] in " \t":
            after += 1
        if (before < 0 or text[before] in _OPENS_RUN) and (after == len(text) or text[after] in _CLOSES_RUN):
            out.append(match.span())
    return out


def _read(text: str, raw: str, begin: int, statements: int, runs: list[tuple[int, int]]) -> Found | None:
    """The verdicts of ``text`` from ``begin``; ``raw``: the unfolded window; ``runs``: the run-together 对/错
    there, relative to ``begin``."""
    segment = text[begin:]
    marks = labels(segment, raw[begin:])
    label_ends = frozenset(label.end for label in marks)
    compacts = sorted([m.span() for m in _COMPACT.finditer(segment)] + runs)
    conditional = conditions(segment)  # "如果①正确，那么②正确": neither is the answer's verdict
    quantifiers = [q for q in quantified(segment, marks) if not in_condition(conditional, q.start)]
    found = [
        verdict
        for verdict in _verdicts(segment, compacts, label_ends)
        if not any(label.start <= verdict[1] < label.end for label in marks)  # "F. 错误": F is statement F's label
        and not any(q.start <= verdict[1] < q.end for q in quantifiers)  # read with its quantifier below
        and not in_condition(conditional, verdict[1])
    ]
    alls = [q for q in quantifiers if not q.others]
    if alls:
        return _all(alls, found, len(alls) < len(quantifiers), statements, begin)
    # "其余错误": where the others' verdicts start, the count each names, and where their line starts
    others = {q.start: (q.counted, segment.rfind("\n", 0, q.start) + 1, q.named) for q in quantifiers}
    found += [(q.value, q.start, q.end) for q in quantifiers if q.value is not None]  # the others', never None
    found = sorted(found, key=lambda verdict: verdict[1])
    numbered = _numbered(
        marks, found, statements, {i: others[at] for i, (_, at, _) in enumerate(found) if at in others}
    )
    if others and not isinstance(numbered, list):
        return None  # the others of no statement named, or of all of them
    if isinstance(numbered, list):
        spans = [found[i] for i in numbered]
        return Found(
            [v for v, _, _ in spans],
            begin + min(s for _, s, _ in spans),
            begin + max(e for _, _, e in spans),
            "numbered",
        )
    if compacts and found:
        start, end = compacts[0]
        after = [at for _, at, _ in found if at >= end]
        own_line = segment[start] in "TF" or not after or "\n" in segment[end : after[0]]
        if end - start == statements > 1 and found[0][1] == start and own_line:
            # "TTTT" or "对错错对" first, then an explanation with more verdict words: the answer is the run. A run
            # of 对/错 with more verdicts on its line ("对错错对，对") is no answer: they are all one list.
            return Found([c in "T对" for c in segment[start:end]], begin + start, begin + end, "compact")
    if numbered is _UNREAD and statements > 1:
        return None  # the answer numbers its verdicts, but not one per statement: never read in the text's order
    if len(found) == statements:
        return Found([v for v, _, _ in found], begin + found[0][1], begin + found[-1][2], "sequence")
    if statements == 1 and found:  # numbered steps ("1. 分析 … 3. 结论：正确") too: one statement, nothing to mix up
        first = found[0]
        if not segment[: first[1]].strip(" \n:.,-(["):
            return Found([first[0]], begin + first[1], begin + first[2], "leading")
        if len({v for v, _, _ in found}) == 1:
            return Found([first[0]], begin + first[1], begin + found[-1][2], "agreeing")
    return None


def _all(
    alls: list[Quantified], found: list[tuple[bool, int, int]], others: bool, statements: int, begin: int
) -> Found | None:
    """Every statement's verdict from a quantifier over them all ("以上说法都正确", "没有一个说法是正确的"), where
    no other verdict of the answer (``found``), no "the others" and no count but the statements' says otherwise."""
    values: set[bool | None] = {q.value for q in alls} | {value for value, _, _ in found}
    if others or None in values or len(values) != 1 or any(q.counted not in (None, statements) for q in alls):
        return None
    return Found([bool(values.pop())] * statements, begin + alls[0].start, begin + alls[-1].end, "all")


_UNREAD = "unread"


def _numbered(
    marks: list[Label],
    found: list[tuple[bool, int, int]],
    statements: int,
    others: dict[int, tuple[int | None, int, frozenset[int]]],
) -> list[int] | str | None:
    """Each verdict goes to the label before it: the index in ``found`` of each statement's first verdict, in
    statement order; :data:`_UNREAD` where labelled verdicts are not exactly one per statement (a number missing,
    beyond the statements, or given two verdicts); ``None`` where no verdict follows a label. ``others``: the
    indexes in ``found`` of the verdicts for the statements not named before them ("①③正确，其余错误"), on their
    line where it names any ("1. 正确 … 4. 正确\n综上，①④正确，其余错误"), and for each the count it names, if any,
    and where its line starts: they must name one or more statements, as many as the count."""
    given: dict[int, list[int]] = {}
    starts = [label.start for label in marks]
    for index, (_, at, _) in enumerate(found):
        if index in others:
            continue
        label = bisect_right(starts, at) - 1
        while label >= 0:  # the label's verdict, and its group's ("①③正确": ① and ③)
            given.setdefault(marks[label].number, []).append(index)
            label = label - 1 if marks[label].joined else -1
    if not given:
        return None
    named = [at for number, indexes in given.items() if number <= statements for at in indexes]
    if named and all(at > max(named) for number, ats in given.items() if number > statements for at in ats):
        # Numbers past the statements' after all of theirs ("1. F … 4. F 5. F" for four): the list went on, as
        # the release's evaluator also reads it (the first n). Before or among them they leave it unread.
        given = {number: indexes for number, indexes in given.items() if number <= statements}
    if others:  # one named after them too has two verdicts ("①③正确，其余错误，④正确")
        first = min(others)
        at, line, before = found[first][1], others[first][1], set(others[first][2])  # "只有②正确": ② alone
        before = before or {n for n, indexes in given.items() if any(line <= found[i][1] < at for i in indexes)}
        before = before or {n for n, indexes in given.items() if any(i < first for i in indexes)}
        rest = [n for n in range(1, statements + 1) if n not in before]
        if not rest or any(count not in (None, len(rest)) for count, _, _ in others.values()):
            return _UNREAD
        for n in rest:
            given.setdefault(n, []).extend(others)
    agreed = all(len({found[i][0] for i in indexes}) == 1 for indexes in given.values())
    if agreed and sorted(given) == list(range(1, statements + 1)):
        return [given[n][0] for n in range(1, statements + 1)]
    return _UNREAD


def _verdicts(segment: str, compacts: list[tuple[int, int]], label_ends: frozenset[int]) -> list[tuple[bool, int, int]]:
    """Every verdict in order; a run like ``TFFT`` or ``对错错对`` (``compacts``, in order) counts one per character."""
    out: list[tuple[bool, int, int]] = []
    position = 0
    for start, end in compacts:
        out.extend(verdicts(segment, position, start, label_ends))
        out.extend((segment[i] in "T对", i, i + 1) for i in range(start, end))
        position = end
    out.extend(verdicts(segment, position, len(segment), label_ends))
    return out
