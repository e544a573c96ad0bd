"""Answer markers: the words by which an output or a solution step says "here is the answer".

One definition, read by the extractors (:mod:`runners.extraction`) and by the wrong-step
detectors (``reasoning_metrics.verify``: stated answers, the final-answer check, the judge's
verdict). The pieces (``答案`` with its hedges and copulas, ``\\boxed``, ``####``) are defined once;
each reader's pattern is a named variant built from them. Where two readers differ, the
difference is on purpose and is said next to the variant.
"""

from __future__ import annotations

import re

ZH_ANSWER = "答案"
ZH_HEDGE = r"(?:应该|应)"
"""答案应该是, 答案应为."""
ZH_COPULA = r"(?:是|为)"
ZH_CONCLUDE = r"(?:故|所以|因此)"
"""Words that open a conclusion: 故答案为, 所以答案是."""
ZH_ANSWER_IS = rf"{ZH_ANSWER}\s*{ZH_HEDGE}?\s*{ZH_COPULA}?\s*"
"""答案, 答案是, 答案应为, 答案 应该 是 (a colon after it is up to each variant)."""
EN_ANSWER_IS = r"(?i:answer)\s*(?:(?i:is)\s*)?:?"
"""answer, answer is, answer:, Answer is:."""
EN_ANSWERS_ARE = r"(?i:answers?)\s*(?:(?i:is|are)\s*)?:?"
"""As :data:`EN_ANSWER_IS`, and answers / answers are."""
BOXED = r"\\boxed"
HASHES = "####"
"""GSM8K's final-answer line."""

ANSWER_IS = re.compile(rf"{ZH_ANSWER_IS}:?|{EN_ANSWER_IS}")
"""Single choice: where the option text after the last marker is looked for ("正确答案是：北京")."""
ANSWERS_ARE = re.compile(rf"{ZH_ANSWER_IS}:?|{EN_ANSWERS_ARE}")
"""Cloze: one letter per blank is read after the last marker first."""
BRACKETED_ANSWER = re.compile(r"【答案】\s*[:：]?\s*\**\s*")
"""Cloze: the marker GAOKAO-Bench's prompts ask for before each question's letter (（1）【答案】 A <eoa>); one per
blank, each right before its letter, is read before any other rule (the release reads them the same way)."""
ANSWERS_ARE_COLON = re.compile(rf"{ZH_ANSWER_IS}:|{EN_ANSWERS_ARE}")
"""Judgment: as :data:`ANSWERS_ARE` but 答案 counts only with its colon (答案：, 答案是：). Without a
colon 答案 is also a word of a sentence around a verdict ("这个答案是对的吗？不对。"), and reading the
window after it would take that sentence's 对 for the answer."""
ORDER_IS = re.compile(
    rf"(?:顺序|排序|次序|{ZH_ANSWER}|(?i:order|answer|sequence))[^:\n]{{0,12}}?(?:是|为|:|(?i:is))\s*:?\s*"
)
"""Sorting: the letter run right after the last "顺序是", "正确的排序应该是：", "order is" is the answer."""
FILL_ANSWER = re.compile(
    rf"(?:正确|最终)?{ZH_ANSWER_IS}:|{ZH_CONCLUDE}?{ZH_ANSWER}{ZH_COPULA}|故填|应填|填入?\s*:"
    r"|(?i:(?:final |correct )?answers?\s*(?:is|are|:))"
)
"""Fill-in: the answer is the text after the last marker (正确答案是：, 故答案为, 应填, the answer is);
答案 counts only with a colon or a copula right after it."""

STATED_ANSWER = re.compile(
    rf"{BOXED}\s*\{{([^{{}}]{{1,80}})\}}|{HASHES}\s*([^\n]{{1,40}})|\banswer\s*(?:is|:)\s*([^\n;]{{1,40}})"
    rf"|{ZH_ANSWER}\s*(?:是|为|:|：)\s*([^\n。；，]{{1,40}})",
    re.IGNORECASE,
)
"""A step's final-answer statements, the answer in the one group that matched: ``\\boxed{18}``,
``#### 18``, "the answer is 18", 答案为18 (the verifier reads the first number of each)."""
CHOSEN_LETTER = re.compile(
    rf"(?:故选|应选|选择|{ZH_ANSWER}{ZH_COPULA}|{ZH_ANSWER}[:：]|正确{ZH_ANSWER}是|正确选项是|正确的选项是)"
    r"\s*[:：]?\s*\**\s*([A-H])\b"
)
"""A step choosing an option, the letter in the group: 故选C, 正确答案是：**B**, 选择A (the option-verdict
detector reads it; 选 alone is left out, as in 选项A, which names an option without choosing it)."""
CONCLUDES = re.compile(rf"{BOXED}|{HASHES}|\banswer\b|\bfinal\b|{ZH_ANSWER}|故选|选[A-DＡ-Ｄ]", re.IGNORECASE)
"""A step that states a final answer with a marker, in any language."""
CONCLUDES_ZH = re.compile(CONCLUDES.pattern + r"|[=＝∴]|故|所以|因此|综上|解得|答[:：]", re.IGNORECASE)
"""A Chinese step that concludes: a marker, or a relation or concluding word (``∴ x = 3``, 故, 所以,
因此, 综上, 解得, 答：), as teacher analyses conclude without any marker."""
JUDGE_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
"""The opening of a judge's boxed verdict (``\\boxed{3}``, ``\\fbox{3}``)."""
JUDGE_ANSWER = re.compile(rf"(?:final answer|answer|{ZH_ANSWER})\s*(?:is|为|是|:|：)?\s*(-?\d+)", re.IGNORECASE)
"""A judge's "answer: 3", 答案是3: the step number in the group."""
