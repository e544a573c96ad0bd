"""Where a judgment answer's verdict words state no verdict of its own: a condition and what it implies.

"如果①正确，那么②正确", "若②错误，则①也错误", "只有①正确时，②才正确", "当x>0时，说法正确", "If statement 1 is true,
then statement 2 is false", "Let's check whether it is true": neither the condition's verdict nor its consequence's
is the answer's. A condition (如果, 假如, 假若, 假设, 倘若, 若, 要是, 如若, 只要, 一旦, 万一; 当 … 时 in one clause; 只有
… 才 in one sentence, 才 in a later clause or after 时, never "只有②才正确", which is "only"; if, when, unless,
whether, suppose, assuming, provided that, never "even if"; a purpose, "To be correct, we need …", "For it to be
true, …") starts a clause, or follows a connective ("所以若…", "因为只有…才…"). It runs to the end of its clause and
of the next, the consequence (to the clause with 才 for 只有 … 才), never past a sentence's end or a conclusion that
starts a clause (所以, 因此, 故, so, therefore): the real teachers' analyses of CK12 say "一旦被识破，他就难以在社会上
立足，…，题干说法错误" and "当我们与父母发生矛盾时，要积极沟通交流，…，所以题文中的观点是正确的", whose verdicts stand
beyond it. Concessions ("即使①正确，②也错误", "Even if x>0, it is false") assert their consequence and are no
condition here.
"""

from __future__ import annotations

import re

_CLAUSE_END = re.compile(r"[,;。!?\n]|\.(?=\s|$)")
_SENTENCE_END = re.compile(r"[;。!?\n]|\.(?=\s|$)")
_OPENER = re.compile(
    r"(?P<zh>如果|假如|假若|假设|倘若|若是|若(?!干)|要是|如若|只要|一旦|万一)"
    r"|(?P<when>当)(?=[^,;。!?\n]*时)|(?P<only>只有)"
    r"|(?i:(?<!even )\b(?:if|when|unless|whether|suppose|supposing|assuming|provided(?=\s+that\b))\b)"
    r"|(?P<purpose>(?i:\bfor\b(?=[^,;.!?\n]{0,60}\bto\s+be\b)|(?<![\w ])[ \t]*(?:in\s+order\s+)?to\s+be\b))"
)
# what may stand right before a condition: the start, punctuation, or a connective ("所以若", "因为只有", "每当")
_BEFORE = re.compile(
    r"(?:^|[\s,;:。!?(\[]|所以|因此|因为|由于|但是|但|而且|而|那么|并且|且|又|即|可见|故|每"
    r"|(?i:\b(?:and|but|so|because|then)))[ \t]*\Z"
)
_THEN = re.compile(r"才")
_APART = re.compile(r"[,:]|时")  # 只有 … 才 a condition: "只有①正确时②才正确", "只有①正确，②才成立"
_CONCLUSION = re.compile(
    r"[ \t]*(?:所以|因此|因而|故|综上|总之|可见|由此可见|由此可知|(?i:so|therefore|thus|hence|overall)\b)"
)


def conditions(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` (width-folded) that a condition and its consequence take, in order."""
    out = []
    for m in _OPENER.finditer(text):
        if not _BEFORE.search(text[max(0, m.start() - 8) : m.start()]):
            continue  # "相当", "宛若", "更重要是": no condition
        if m["only"]:
            then = _THEN.search(text, m.end(), _end(_SENTENCE_END, text, m.end()))
            if then is None or not _APART.search(text, m.end(), then.start()):
                continue  # "只有②正确", "只有②才正确": "only", a verdict (runners.extraction.quantifiers)
            out.append((m.start(), _end(_CLAUSE_END, text, then.end())))
            continue
        end = _end(_CLAUSE_END, text, m.end())
        if end < len(text) and not _SENTENCE_END.match(text, end) and not _CONCLUSION.match(text, end + 1):
            end = _end(_CLAUSE_END, text, end + 1)  # the consequence: the next clause
        out.append((m.start(), end))
    return out


def in_condition(spans: list[tuple[int, int]], at: int) -> bool:
    """Whether ``at`` lies in one of ``spans`` (:func:`conditions`)."""
    return any(start <= at < end for start, end in spans)


def _end(pattern: re.Pattern[str], text: str, at: int) -> int:
    """Where ``pattern`` (a clause's or a sentence's end) is next found from ``at``, or the end of ``text``."""
    found = pattern.search(text, at)
    return found.start() if found else len(text)
