"""Single- and multiple-choice answers, read in stages from the strongest evidence to the weakest.

The stages follow CMMLU's released extractor and go further; none guesses:

1. ``explicit``: "答案是/为 X", "正确答案是：X", "故选X", "the answer is (X)", ``\\boxed{X}``; the
   *last* such statement wins, so a chain of thought that weighs other letters first
   is read at its conclusion.
2. ``option-text`` after an answer marker: "正确答案是：北京" where 北京 is option B.
3. ``stated-correct``: "X 正确 / 当选 / 符合题意", "选X", "X is correct"; the last wins
   (multiple choice: every letter so stated).
4. ``weak``: "是X", "it's X" at the end.
5. ``leading``: the output starts with the letter(s): "C", "C．", "(C)", "BD".
6. ``lone-letter``: exactly one option letter stands alone in the output.
7. ``option-text`` anywhere in a short output: exactly one option's text occurs in it.

Letters are read only when they stand alone (not inside a word such as "Apple"). An output
that restates two or more options with their labels ("A. 错误 B. 正确", on one line or several)
answers only through stages 1-4: its first label is not an answer; nor is the first label of
an output that walks through the options ("A. 错误 B. 正确 C. 错误 D. 错误", on one line or
several). A single-choice answer is one letter or nothing: two letters for a one-letter
question are unparsed, not a guess; so is a statement offering alternatives ("答案是B或C",
"the answer is B or C"), for either kind of choice (#26 item 6).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from kg.records import Question
from runners.extraction.markers import ANSWER_IS, BOXED
from runners.extraction.text import Found, View

# After a run of letters, words that say the last letter is *wrong*: "答案是C，D项错误" is C.
_NEGATED_AFTER = re.compile(
    r"\s*(?:选?项)?\s*(?:是|为|的说法|说法)?\s*(?:错|不|有误|(?i:is wrong|is incorrect|is not|are wrong))"
)
# After a run of letters, an alternative: "答案是B或C" names no one answer.
_ALTERNATIVE = re.compile(r"\s*(?:或者|或是|或|还是|抑或|(?i:or)\b)\s*(?:选项|选)?\s*\(?[A-Z](?![a-z])")
_SENTENCE_END = re.compile(r"[。\n!?;]|\.(?:\s|$)")
_SHORT = 40
_NOISE = re.compile(r"[\s$*`\"“”'‘’「」『』【】《》()（）\[\]{}.,。，、:：;；!！?？]|\\(?:text|mathrm|rm)\b")


@dataclass(frozen=True)
class _Patterns:
    explicit: tuple[re.Pattern[str], ...]
    stated: tuple[re.Pattern[str], ...]
    weak: tuple[re.Pattern[str], ...]
    leading: re.Pattern[str]
    item: re.Pattern[str]
    lone: re.Pattern[str]
    letter: re.Pattern[str]


@lru_cache(maxsize=64)
def _patterns(labels: tuple[str, ...]) -> _Patterns:
    x = "(?:" + "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True)) + ")"
    one = rf"(?<![A-Za-z]){x}(?![A-Za-z])"
    sep = r"[ \t]*(?:,|、|/|&|\+|;|和|与|及|以及|(?i:and))?[ \t]*"  # a run of letters stays on one line
    run = rf"(?P<run>(?<![A-Za-z])\(?{x}\)?(?:{sep}\(?{x}\)?)*)(?![A-Za-z])"
    lone = rf"(?P<run>{one})"
    # A capital letter followed by a lower-case word is the English article or pronoun ("A cat", "I think").
    lone_letter = rf"{one}(?!\s+[a-z])"
    explicit = (
        rf"答案\s*(?:选项)?\s*(?:应该|应当|应|就|确定|最终|可能)?\s*(?:是|为|选择|选)?\s*:?\s*(?:选项|选)?\s*{run}",
        rf"正确的?\s*(?:选项|选择|答案)\s*(?:应该|应)?\s*(?:是|为)?\s*:?\s*{run}",
        rf"(?:故|所以|因此|因而|从而|综上所述|综上|本题|则|我|应该|应当|应|最终|只能)\s*(?:应该|应当|应|可以)?\s*选(?:择)?\s*(?:项)?\s*:?\s*{run}",
        rf"(?i:answer)s?\s*(?:(?i:is|are|would be|should be|will be|must be)\s*|[:=]\s*)+(?:(?i:option|choice)s?\s*)?:?\s*{run}",
        rf"(?i:correct|right|best)\s+(?i:option|choice|answer)s?\s*(?:(?i:is|are)\s*|:\s*)+{run}",
        rf"(?i:I(?:'d| would)?\s+(?:choose|pick|select|go with))\s*(?:(?i:option|choice)\s*)?{run}",
        rf"{BOXED}\s*{run}",
        rf"{run}\s+(?i:is the (?:correct |right |best )?answer)",
    )
    stated = (
        rf"(?:选项)?{run}\s*(?:选?项)?\s*的?(?:说法|表述|叙述|描述|观点)?\s*(?:是|为|都|均)?\s*"
        rf"(?:正确|对的|对(?=[\s,.;。、!]|$)|符合题意|符合要求|最符合|当选|最佳|最合适|最恰当)",
        rf"(?<!不)(?<!不能)(?<!不应)(?<!不可)(?<!排除)(?<!不要)选\s*(?:择)?\s*{run}",
        rf"{run}\s*(?i:is|are)\s+(?:(?i:the)\s+)?(?i:correct|right|true|best)",
    )
    weak = (
        rf"(?<!不)是\s*:?\s*{lone}",
        rf"(?i:it's|it is|is)\s+\(?{lone}\)?\s*[.。!]?\s*$",
    )
    # "C", "C.", "(C)", "C 3个", "C选项" — but not "A project", "A或者C" nor "A句是复句".
    leading = (
        rf"^\s*[(\[]?{run}[)\]]?(?!\s*(?:或|还是|(?i:or)\b))"
        rf"(?=\s*(?:$|[.:,、。;)\]!])|\s+[^A-Za-z\s]|选项|项)"
    )
    return _Patterns(
        explicit=tuple(re.compile(p) for p in explicit),
        stated=tuple(re.compile(p) for p in stated),
        weak=tuple(re.compile(p) for p in weak),
        leading=re.compile(leading),
        # An option discussed as an item: at a line's or sentence's start, or after a space ("A. 错误 B. 正确").
        item=re.compile(
            rf"(?:^|[\n。;；，,]|(?<=\s))\s*(?:[(\[](?P<bracketed>{one})[)\]]|(?P<letter>{one})[)\]]?\s*(?:[.、:)]|选?项))",
            re.M,
        ),
        lone=re.compile(lone_letter),
        letter=re.compile(x),
    )


def extract_choice(view: View, question: Question, multiple: bool) -> Found | None:
    """The letter (single) or letters (multiple) the output answers, or ``None``.

    A single-choice answer is exactly one letter: an output naming two ("答案为B和C") is ``None``.
    """
    found = _read_choice(view, question, multiple)
    if found is not None and (not found.answer or (not multiple and len(found.answer) != 1)):
        return None
    return found


def _read_choice(view: View, question: Question, multiple: bool) -> Found | None:
    labels = tuple(question.option_labels)
    if not labels:
        return None
    pats = _patterns(labels)
    text = view.masked

    found = _last(pats.explicit, text, pats, "explicit")
    if found:
        return found
    found = _option_text_after_marker(view, question, multiple)
    if found:
        return found
    restated = _restated_options(text, question)
    if restated is not None:
        # "A. 错误 B. 正确": the labels and texts are the options' own; only a verdict outside them answers.
        text = restated
    if multiple:
        found = _union(pats.stated, text, pats, "stated-correct")
    else:
        found = _last(pats.stated, text, pats, "stated-correct")
    if found:
        return found
    if not multiple:
        found = _last(pats.weak, text, pats, "weak")
        if found:
            return found
    if restated is not None:
        return None
    match = pats.leading.search(text)
    if match and not _walks_through_options(text, pats):
        letters = _letters(match, text, pats)
        # A single-choice output that opens with several letters ("ABCD") states no answer.
        if letters and (multiple or len(letters) == 1):
            return Found(letters, match.start("run"), match.end("run"), "leading")
    if not multiple:
        lone = {m.group(): m for m in pats.lone.finditer(text)}
        if len(lone) == 1:
            ((letter, m),) = lone.items()
            return Found([letter], m.start(), m.end(), "lone-letter")
    # An option's text named anywhere: only in a short output, a chain of thought names many.
    if len(_squash(view.text)) <= max(_SHORT, 2 * max(len(_squash(o.text)) for o in question.options)):
        return _option_text(view.text, 0, question, multiple, "option-text")
    return None


def _restated_options(text: str, question: Question) -> str | None:
    """``text`` with its restated options blanked out when it writes out two or more ("A. 错误 B. 正确"), else ``None``.

    Blanking keeps offsets, and keeps an option's own text ("正确") from reading as a verdict on it.
    """
    spans: list[tuple[int, int]] = []
    restated = 0
    for option in question.options:
        body = option.text.strip()
        if not body:
            continue
        label = re.escape(option.label)
        pattern = rf"(?<![A-Za-z])(?:[(（]\s*{label}\s*[)）]|{label}\s*[.．、:：)）])\s*{re.escape(body)}"
        found = [m.span() for m in re.finditer(pattern, text)]
        restated += bool(found)
        spans.extend(found)
    if restated < 2:
        return None
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _walks_through_options(text: str, pats: _Patterns) -> bool:
    """Whether the output discusses the options one by one ("A.错误。B.错误。C.正确。"), opening with one."""
    return len({m.group("letter") or m.group("bracketed") for m in pats.item.finditer(text)}) >= 2


def _letters(match: re.Match[str], text: str, pats: _Patterns) -> list[str]:
    """The distinct letters of a matched run, in label order; a last letter said to be wrong is dropped.

    "答案是C，D项错误" reads C; "答案是BD，A项错误" reads BD.
    """
    run = match.group("run")
    found = [m.group() for m in pats.letter.finditer(run)]
    if len(found) > 1 and _NEGATED_AFTER.match(text, match.end("run")):
        found = found[:-1]
    return sorted(set(found), key=lambda lab: (len(lab), lab))


def _last(patterns: Sequence[re.Pattern[str]], text: str, pats: _Patterns, rule: str) -> Found | None:
    best: re.Match[str] | None = None
    for pattern in patterns:
        for match in pattern.finditer(text):
            if best is None or match.start("run") > best.start("run"):
                best = match
    if best is None:
        return None
    if _ALTERNATIVE.match(text, best.end("run")):
        # "答案是B或C": the conclusion offers a choice; no earlier or weaker reading replaces it.
        return Found([], best.start("run"), best.end("run"), rule)
    letters = _letters(best, text, pats)
    return Found(letters, best.start("run"), best.end("run"), rule) if letters else None


def _union(patterns: Sequence[re.Pattern[str]], text: str, pats: _Patterns, rule: str) -> Found | None:
    letters: set[str] = set()
    start, end = len(text), 0
    for pattern in patterns:
        for match in pattern.finditer(text):
            letters.update(_letters(match, text, pats))
            start, end = min(start, match.start("run")), max(end, match.end("run"))
    if not letters:
        return None
    return Found(sorted(letters, key=lambda lab: (len(lab), lab)), start, end, rule)


def _option_text_after_marker(view: View, question: Question, multiple: bool) -> Found | None:
    markers = list(ANSWER_IS.finditer(view.text))
    if not markers:
        return None
    begin = markers[-1].end()
    stop = _SENTENCE_END.search(view.text, begin + 1)
    segment = view.text[begin : stop.start() if stop else len(view.text)]
    return _option_text(segment, begin, question, multiple, "option-text-after-marker", min_len=1)


def _option_text(
    segment: str, offset: int, question: Question, multiple: bool, rule: str, min_len: int = 2
) -> Found | None:
    """Options whose text occurs in ``segment`` (an option inside a longer matching one does not count)."""
    haystack = _squash(segment)
    if not haystack:
        return None
    keys = {o.label: _squash(o.text) for o in question.options}
    hits = [label for label, key in keys.items() if len(key) >= min_len and _occurs(key, haystack)]
    hits = [a for a in hits if not any(a != b and keys[a] in keys[b] for b in hits)]
    if not hits or (len(hits) > 1 and not multiple):
        return None
    return Found(sorted(hits, key=lambda lab: (len(lab), lab)), offset, offset + len(segment), rule)


def _occurs(key: str, haystack: str) -> bool:
    """Whether an option's squashed text is in the squashed segment; a text of one Latin letter (GAOKAO-Bench's
    ``A. A`` under a table of options) only where no other Latin letter touches it: the ``a`` of ``<eoa>``
    or of a word is no answer."""
    if len(key) == 1 and key.isascii() and key.isalpha():
        return re.search(rf"(?<![a-z]){re.escape(key)}(?![a-z])", haystack) is not None
    return key in haystack


def _squash(text: str) -> str:
    return _NOISE.sub("", text).lower()
