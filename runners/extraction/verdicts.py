"""The pieces a judgment answer is read from: verdicts in a verdict position, and the labels that number statements.

A verdict word counts only where it is one. 正确 and 错误 are also an adjective and a noun of prose ("正确的做法是",
"纠正错误", "错误地认为", "错误而不敢实践"): a word verdict counts at a clause end (after it, with an optional 的 or
了: punctuation, a space, a digit, the end; "说法错误。", "是错误的，", "不正确 2."), or right after a statement's label
("1. 错误地"); never after a verb or a measure word that makes it a noun ("纠正错误。", "一个错误。"), nor as 对 or 错
of a word ("雌雄蛙抱对，", "成对的", "犯错。"); a question is none ("是对的吗？", "这个说法正确？", "①正确？不对，…":
the verdict, if any, comes after it; no real answer read puts a question mark after its verdict, and the real text
that puts one there asks the reader, "下列哪些说法正确？"). A negation before a verdict word states its opposite
("不是错误的" true, "并非正确" false, "没有错" true, "not wrong" true), a hedge none ("不一定正确", "不完全对",
"不是完全错误的", "not necessarily true"): never the word it negates. × between two operands is a
multiplication sign ("3×4=12", "$$3\\times 4$$") and √ before one a root ("√4=2"), unless a label stands right before
them ("(1)×(2)√"). T and F before an equals sign are variables ("F=ma"). An English verdict word is none where it is
asked ("Is it true that x>0", "Is statement 1 true or not"), the verb "correct" ("let's correct this", "we need to
correct the sign", "correct the calculation"), or an adjective that starts its clause before its noun ("Correct
spelling: teacher"; "True because …" stays a verdict); a purpose's ("To be correct, we need …") is a condition's
(:mod:`runners.extraction.conditions`).

Labels: "1." "1、" "1:" "1)" after a line start, a space, punctuation or a mark (never a decimal, "1.5", nor a
solution's step, "Step 1: Correct"); "(1)" (not f(1)); ①-⑳
and ⑴-⒇ in the raw output, none inside a quotation (“④而今……” quotes a passage's paragraph ④); 第1/第一 with 个, 句,
题, 道, 小题, 种说法, 说法, 命题 or punctuation after it (not 第一步, 第3项 of a sequence, 第1条直线, 第一种情况); 说法一, 说法1, 命题3; a digit with a verdict
word or letter right after it ("1对 2错", "1T"; not "3×4"); the letters A-S of lettered statements ("A. 错误", "(B)",
"选项C", "D项", "E正确"), where the answer has an A. Labels side by side or joined by 、, 和, 与, 及 are one group
("①③", "（1）（3）", "①、③", "第1、3个", "第1和第3个", "说法一、三", and digits before a verdict word: "1和3对", "1、2对"),
never with only a space between ("1.  2.  3." echoes the prompt's format). English labels: "Statement 2",
"statement two", "No. 3", "#4", "Q1:", ordinals before a statement's noun, a verb or punctuation ("the first is true",
"2nd: false", "the second and third are false"; never "the first step", "5 second", "at first"), and the plural's
group ("Statements 1 and 4 are true"). 0/1 per statement ("1. 0 2. 1") is read only with a legend
(:mod:`runners.extraction.legend`).
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

_ALONE = r"(?=的|[\s\d,.;。、!()]|$)"  # 对 and 错 only alone ("是对的", "1.对 2.错"), not in 对公民, 抱对, 对抗
_WORD_TRUE = rf"正确|对{_ALONE}"
_WORD_FALSE = rf"不正确|不对|错误|错{_ALONE}"
_TRUE = rf"{_WORD_TRUE}|√|✓|✔|(?<![A-Za-z])T(?![A-Za-z])|(?i:\btrue\b|\bcorrect\b)"
_FALSE = (
    rf"{_WORD_FALSE}|×|✗|✘|✕|(?<![A-Za-z])F(?![A-Za-z])"
    r"|(?i:\bnot (?:true|correct)\b|\bfalse\b|\bincorrect\b|\bwrong\b)"
)
VERDICT = re.compile(rf"(?P<false>{_FALSE})|(?P<true>{_TRUE})")
_WORDS = frozenset({"正确", "不正确", "不对", "错误", "对", "错"})
_CLAUSE_END = re.compile(r"(?:的|了)?(?:[\s\d,.;!?()\[\]、。…]|$)")
# What makes 错误/正确 a noun or its object: 纠正错误, 犯了错误, 一个错误, 这种错误, 计算的正确.
_NOUN_BEFORE = re.compile(r"(?:纠正|改正|更正|修正|指出|避免|犯了?|承认|找出|发现|出现|防止|常见|[个些种类的])\s*$")
_PAIRS = frozenset("抱成配一两双每")  # 抱对, 成对的, 配对: a pair, no verdict
_ERR_WORDS = frozenset("犯出认纠改交差过")  # 犯错, 出错, 交错, 差错: no verdict
# A negation before a verdict word states its opposite ("不是错误的", "并非正确", "没有错", "not wrong"); a hedge
# states none ("不一定正确", "不完全对", "不是完全错误的", "not necessarily true"): the word is no verdict.
_HEDGED = re.compile(
    r"(?:(?:未必|不见得|不能说|不能算)|(?:不|不是|并非|没有?)(?:一定|完全|全都|全|都|太|够|很|十分|非常|甚|尽|总|[ \t]{2}))"
    r"(?:都|是)*[ \t]*\Z"  # two spaces: a word blanked as no verdict ("不是绝对正确")
    r"|(?i:\bnot[ \t]+(?:necessarily|always|entirely|completely|quite|fully|all)[ \t]+)\Z"
)
_NEGATED = re.compile(
    r"(?:不是|并非|绝非|而非|没有?|不算|算不上)[ \t]?\Z|(?i:\b(?:not|isn't|is[ \t]+not|never)[ \t]+)\Z"
)
_EN_ARTICLE_BEFORE = re.compile(r"(?i:\b(?:a|an|the|no|any|some)\s+)$")  # "a correct pronunciation": no verdict
_EN_NOUN_AFTER = re.compile(r"\s+[A-Za-z]")
# an English verdict word followed by a noun other than a statement's, not by a clause's next word ("because"):
# "they are all correct computations", "Correct spelling: teacher"
EN_BEFORE_NOUN = re.compile(
    r"(?i:[ \t]+(?!(?:because|since|as|so|and|but|or|for|in|on|at|if|when|here|now|then|too|except|according"
    r"|based|due|given|by|of|with|overall|indeed|statements?|claims?|ones?|sentences?|facts?)\b)[a-z])"
)
_EN_CLAUSE = re.compile(r"[^.;:!?,\n]*\Z")  # the clause so far, before a verdict word
# asked, inverted ("Is it true that x>0", "is the statement correct", "Are statements 1 and 2 true"): no verdict
_EN_ASKING = re.compile(
    r"(?i:\s*(?:is|are|was|were|isn't|aren't|wasn't|weren't)\s+(?:it|this|that|they|these|those"
    r"|(?:the|this|that|these)\s+\w+(?:\s+\d{1,2})?|(?:statements?|claims?|sentences?)\s+\w+(?:\s+and\s+\w+)?)"
    r"\s+(?:really\s+|actually\s+|also\s+)?)\Z"
)
# "correct" a verb: after its subject, a modal or "to" ("let's correct this", "we need to correct the sign"), or
# before its object ("correct the calculation")
_EN_VERB_BEFORE = re.compile(
    r"(?i:\b(?:let's|let\s+(?:me|us)|to|will|'ll|would|can|could|should|must|shall|we|i|you|they|please)\s+)\Z"
)
_EN_OBJECT_AFTER = re.compile(r"(?i:\s+(?:this|it|them|these|those|the|my|our|your|his|her|its|their|each|every)\b)")
_ASKED = re.compile(r"(?:的|了)?[ \t]*\?")  # "这个说法正确？", "①正确？不对", "Is statement 2 true? No."
_EN_STATEMENT_AFTER = re.compile(r"(?i:\s+(?:statement|claim|sentence|one|fact)\b)")
_OPERAND_BEFORE = re.compile(r"[\dA-Za-z)\]}π%]\s*$")
_OPERAND_AFTER = re.compile(r"\s*(?:\\\s*)?[\dA-Za-z(\[{π]")  # "\times \$32": the $ masked, its \ kept


class Verdict(NamedTuple):
    value: bool
    start: int
    end: int


class Label(NamedTuple):
    number: int
    start: int
    end: int
    joined: bool = False  # one group with the label before it ("①③正确", "第1、3个说法正确"): their verdict is its


_CHINESE_DIGITS = {c: i + 1 for i, c in enumerate("一二三四五六七八九")} | {"两": 2}
_EN_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_EN_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_EN_NTH = tuple(f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th') }" for n in range(1, 11))  # 1st … 10th
_ENGLISH_NUMBERS = {word: i + 1 for words in (_EN_WORDS, _EN_ORDINALS, _EN_NTH) for i, word in enumerate(words)}
"""两 counts (两个说法都正确) but names no statement: :data:`_NUMBER` does not read it."""
_NUMBER = r"\d{1,2}|十?[一二三四五六七八九]|十"
_BEFORE_LABEL = r"\s,;:。，；、!?()\[\]√✓✔×✗✘✕"  # a label starts a line or follows a space, punctuation, a mark
# English labels: "Statement 2", "statement two", "No. 3", "#4", "the first statement", "the second is false", a line
# that starts "First," or "the second:", "2nd:" anywhere (never "5 second", "at first", "the first step", "sold first, then"): an ordinal counts
# before a statement's noun, a verdict, or punctuation at the start of its line only.
_EN_WORD = "|".join(_EN_WORDS)
EN_ORDINAL = "|".join(_EN_ORDINALS + _EN_NTH)
_EN_VERDICT = r"(?:not\s+)?(?:true|false|correct|incorrect|wrong|right)\b"
_EN_AFTER_ORDINAL = (  # "the first statement", "the second one is false", "the first is true", "first and third"
    rf"\s*(?:(?i:(?:statement|claim|item)\b|one\s*[:,]|(?:one\s+)?(?:is|are|was)\s+{_EN_VERDICT}"
    rf"|(?:,\s*)?and\s+(?:the\s+)?(?:{EN_ORDINAL})\b))"
)
_NO_STEP = r"(?<![Ss]tep )(?<!STEP )"  # "Step 1: Correct … Step 9: Incorrect": a solution's steps, no statements
_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』")
_LABEL = re.compile(
    rf"第\s*(?P<nth>{_NUMBER})\s*(?=个|句|题|道|小题|种说法|说法|命题|[\s,:、.)])"
    rf"|(?:说法|命题)\s*(?P<named>{_NUMBER})"
    rf"|(?<![A-Za-z0-9\]])\(\s*(?P<bracketed>{_NUMBER})\s*\)"  # not f(1); (1)(3) both
    rf"|(?<![^{_BEFORE_LABEL}]){_NO_STEP}(?P<listed>\d{{1,2}})\s*[.、:)](?!\d)"
    rf"|(?<![^{_BEFORE_LABEL}]){_NO_STEP}(?P<tight>\d{{1,2}})(?=\s*(?:{_WORD_FALSE}|{_WORD_TRUE}|[TF](?![A-Za-z])))"
    rf"|(?i:\b(?:statement|claim|sentence|item|question|no\.)\s*(?P<english>\d{{1,2}}|{_EN_WORD})\b)"
    r"|(?<![\w#])#(?P<hash>\d{1,2})\b|(?<![A-Za-z])Q(?P<q>\d{1,2})(?=\s*[:.)])"
    rf"|(?<!\d )(?<!\d)(?<!\bat )(?i:\b(?P<ordinal>{EN_ORDINAL})\b(?={_EN_AFTER_ORDINAL}))"
    rf"|(?<![^\n])[ \t]*(?:[-*][ \t]*)?(?i:(?:the[ \t]+)?(?P<lined>{EN_ORDINAL})\b)(?=[ \t]*[:,)])"
    rf"|(?<![\w.])(?P<numbered>{'|'.join(_EN_NTH)})(?=[ \t]*[:)])"
)
# Statements lettered A., B., … (CK12 has 物理 judgment questions so): "A. 错误", "(B)正确", "选项C", "D项"; read only
# where the answer has an A, so that "1. F. 2. T." keeps F as a verdict.
_LETTERED = re.compile(
    rf"\((?P<bracketed>[A-S])\)|选项\s*(?P<named>[A-S])(?![A-Za-z])|(?<![^\s,;:。，；、!?()\[\]])(?P<listed>[A-S])\s*(?:[.、:)]|项)"
    rf"|(?<![^\s,;:。，；、!?()\[\]])(?P<tight>[A-S])(?=\s*(?:{_WORD_FALSE}|{_WORD_TRUE}))"
)


# Statements named together, then their verdict word: "第1、3个说法正确", "说法一、三正确", "1和3对", "1、2对". Never
# a mark ("2×2及3×3": × multiplies), nor Chinese numerals without 第/说法/命题 ("一、" heads a section).
_JOIN = r"\s*(?:[、和与及]|以及)\s*"
_GROUP = re.compile(
    rf"(?:(?:第|说法|命题)\s*(?P<nth>(?:{_NUMBER})(?:{_JOIN}第?\s*(?:{_NUMBER}))+)"
    rf"|(?<![^\s,;:。，；、!?()\[\]])(?P<bare>\d{{1,2}}(?:{_JOIN}\d{{1,2}})+))(?![\d.])"
    rf"(?=\s*(?:个|句|题|道|小题|种)?\s*(?:说法|命题)?\s*(?:都|均|也)?\s*是?\s*(?:不是|并非|没有?)?\s*"
    rf"(?:{_WORD_FALSE}|{_WORD_TRUE}))"
)
_NUMBERS = re.compile(_NUMBER)
_EN_JOIN = r"(?i:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)(?:the\s+)?)"
_EN_AND = r"(?i:(?:\s*,)?\s+and\s+(?:the\s+)?|\s*&\s*)"  # "the second and third": a comma alone joins no ordinals
# "Statements 1 and 4 are true", "statements two, three and four": the plural names a group.
_EN_GROUP = re.compile(
    rf"(?i:\bstatements\s+)(?P<numbers>(?:\d{{1,2}}|{_EN_WORD})(?:{_EN_JOIN}(?:\d{{1,2}}|{_EN_WORD}))+)\b"
)
_EN_NUMBERS = re.compile(rf"\d{{1,2}}|(?i:\b(?:{_EN_WORD})\b)")
# between two labels of one group: nothing, 、, 和, 与, 及, 以及, "and", ", "
_JOINED = re.compile(rf"(?:{_JOIN}(?:第\s*)?|{_EN_AND})?")


def number(text: str) -> int:
    """1-99 from digits, Chinese numerals (三, 十二) or English numbers and ordinals (three, third, 3rd)."""
    if text.isdigit():
        return int(text)
    if text.lower() in _ENGLISH_NUMBERS:
        return _ENGLISH_NUMBERS[text.lower()]
    if text == "十":
        return 10
    tens = 10 if text.startswith("十") else 0
    return tens + _CHINESE_DIGITS[text[-1]]


def labels(text: str, raw: str) -> list[Label]:
    """Every statement label in ``text`` (folded and masked), in order; ``raw``: the same window unfolded."""
    found = [Label(number(next(g for g in m.groups() if g)), m.start(), m.end()) for m in _LABEL.finditer(text)]
    lettered = [Label(ord(next(g for g in m.groups() if g)) - 64, m.start(), m.end()) for m in _LETTERED.finditer(text)]
    if any(label.number == 1 for label in lettered):
        found += lettered
    for m in _GROUP.finditer(text):  # each number of a group is a label; the labels found within it are not
        group = m.start("nth") if m.group("nth") else m.start("bare")
        found = [f for f in found if f.end <= m.start() or f.start >= m.end()]
        found += [
            Label(number(n.group()), group + n.start(), group + n.end())
            for n in _NUMBERS.finditer(m["nth"] or m["bare"])
        ]
    for m in _EN_GROUP.finditer(text):
        found = [f for f in found if f.end <= m.start("numbers") or f.start >= m.end()]
        first = m.start("numbers")
        found += [
            Label(number(n.group()), first + n.start(), first + n.end(), joined=i > 0)
            for i, n in enumerate(_EN_NUMBERS.finditer(m["numbers"]))
        ]
    for i, c in enumerate(raw):
        if "①" <= c <= "⑳" or "⑴" <= c <= "⒇":  # circled and bracketed: ① folds to 1, ⑩ and ⑴ stay as they are
            found.append(Label(int(unicodedata.numeric(c)), i, i + 1))
    quoted = [m.span() for m in _QUOTED.finditer(raw)]  # "根据原文“④而今……”": a passage's paragraph, no statement
    found = [f for f in found if not any(start < f.start < end for start, end in quoted)]
    at = {label.start for label in found if len(raw) > label.start and raw[label.start] in "①②③④⑤⑥⑦⑧⑨"}
    found = [f for f in found if f.start not in at or (f.end - f.start == 1)]  # ① once, not as a listed "1"
    found = sorted(set(found), key=lambda label: label.start)
    return [
        label._replace(
            joined=label.joined or (i > 0 and _JOINED.fullmatch(text, found[i - 1].end, label.start) is not None)
        )
        for i, label in enumerate(found)
    ]


def verdicts(text: str, start: int, end: int, label_ends: frozenset[int]) -> list[Verdict]:
    """The verdicts of ``text[start:end]`` that stand in a verdict position; ``label_ends``: where labels end."""
    out = []
    for m in VERDICT.finditer(text, start, end):
        value, at = m.group("true") is not None, m.start()
        if m.group() in _WORDS or (m.group().isascii() and len(m.group()) > 1):  # words, not marks or T/F
            before = text[max(0, at - 24) : at]
            if _HEDGED.search(before):
                continue
            negation = _NEGATED.search(before)
            if negation:
                value, at = not value, at - len(before) + negation.start()
        labelled = after_label(text, at, label_ends)
        counted = text[at - 1 : at] == "个" and after_label(text, at - 1, label_ends)  # 第2、4个错误: no noun
        if _in_position(text, m.group(), m.start(), m.end(), labelled, counted):
            out.append(Verdict(value, at, m.end()))
    return out


def after_label(text: str, at: int, label_ends: frozenset[int]) -> bool:
    """``at`` follows a statement's label, past blanks and a colon (``label_ends``: where labels end)."""
    before = at
    while before > 0 and text[before - 1] in " \t:":
        before -= 1
    return before in label_ends


def _in_position(text: str, word: str, start: int, end: int, labelled: bool, counted: bool) -> bool:
    if word in "×✕":
        return labelled or not (_OPERAND_BEFORE.search(text, 0, start) and _OPERAND_AFTER.match(text, end))
    if word == "√":
        return labelled or not (end < len(text) and text[end] in "0123456789abcdefghijklmnopqrstuvwxyz(")
    if word in "TF":
        return labelled or not re.match(r"\s*=", text[end:])
    if _ASKED.match(text, end):
        return False  # asked, even after a label: the answer, if the output gives one, is a verdict after it
    if word not in _WORDS:  # English: "is correct.", "is a true statement", never "a correct pronunciation"
        if _english_prose(text, word, start, end, labelled):
            return False
        article = _EN_ARTICLE_BEFORE.search(text, 0, start)
        if labelled or not article or not _EN_NOUN_AFTER.match(text, end):
            return True
        return article.group().lower().startswith("a") and _EN_STATEMENT_AFTER.match(text, end) is not None
    if labelled:
        return True
    if len(word) > 1 and not counted and _NOUN_BEFORE.search(text, max(0, start - 3), start):
        return False
    if start and text[start - 1] in {"对": _PAIRS, "错": _ERR_WORDS}.get(word, ()):
        return False
    return _CLAUSE_END.match(text, end) is not None


def _english_prose(text: str, word: str, start: int, end: int, labelled: bool) -> bool:
    """An English verdict word that states none: asked ("Is it true that", "Is statement 1 true or not"); after no
    label, the verb "correct" ("let's correct this"), or an adjective that starts its clause before a noun
    ("Correct spelling: teacher")."""
    clause = _EN_CLAUSE.search(text, max(0, start - 80), start)
    before = clause.group() if clause else ""
    if _EN_ASKING.match(before):
        return True
    if labelled:
        return False
    if word.lower() == "correct" and (_EN_VERB_BEFORE.search(before) or _EN_OBJECT_AFTER.match(text, end)):
        return True
    return not before.strip() and EN_BEFORE_NOUN.match(text, end) is not None
