"""Why a score or a detector has no value, in Chinese, for the Chinese page.

The reasons are written in English where they arise (:func:`reasoning_metrics.scoring._why_unavailable`,
:meth:`reasoning_metrics.slots.ModelSlots.get`, :mod:`reasoning_metrics.chain_inputs`,
:func:`reasoning_metrics.verify.aggregate_rule.assess`) and stored so in score files; this is their
one translation, kept beside them. A reason not listed here has no Chinese line (``None``).
"""

from __future__ import annotations

import re

from reasoning_metrics.slots import LOAD_FAILED
from reasoning_metrics.verify.aggregate_rule import NO_REFERENCE
from reasoning_metrics.verify.scored import NO_ENCODER, NO_JUDGE

ROLES_ZH = {
    "encoder": "句子编码器",
    "NLI": "NLI（推理判断）模型",
    "nli": "NLI（推理判断）模型",
    "lm": "语言模型",
    "grammar": "语法模型",
    "judge": "评审模型",
    "token_embedder": "词向量模型",
}
LANGUAGES_ZH = {"zh": "中文", "en": "英文"}

REASONS_ZH: dict[str, str] = {
    "the chain has no steps": "推理链没有步骤",
    "no reference chain given": "没有参考推理链（题目没有解析）",
    "the reference has no steps": "解析没有步骤",
    "the source has no sentences": "题目没有句子",
    "the language model found no tokens in a step": "语言模型在某一步中没有读到词元",
    "no sentence encoder given": "没有指定句子编码器",
    "no NLI model given": "没有指定 NLI（推理判断）模型",
    "no judge backend given": "没有指定评审模型",
    "no process reward model given": "没有指定过程奖励模型",
    "no rollout backend given": "没有指定续写模型",
    "the process reward model could not score this solution (too long)": "解答太长，过程奖励模型无法评分",
    "the process reward model could not score this chain (too long)": "解答太长，过程奖励模型无法评分",
    "no gold answer to compare continuations with": "没有标准答案可与续写比较",
    NO_REFERENCE: "没有参考：题库没有这道题的教师解析",
    NO_JUDGE: "评分（score）时不运行评审模型（meta-eval 可以运行）",
    NO_ENCODER: "没有步骤相似度：这条推理链没有经过句子编码器，或题目没有句子",
}

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"no (\w+) model for (\w+) text \(pass one\)"), "没有用于{lang}文本的{role}（请指定一个）"),
    (re.compile(r"no (NLI) model for (\w+) text"), "没有用于{lang}文本的{role}"),
    (re.compile(r"no (\w+) model"), "没有{role}"),
    (re.compile(re.escape(LOAD_FAILED) + r" (\w+) model (.*)"), "无法加载{role}：{detail}"),
    (re.compile(r"the NLI model gave no answer for (\d+) of (\d+) pairs"), "NLI 模型对 {a} / {b} 个句对没有给出结果"),
]


def reason_zh(reason: str) -> str | None:
    """The Chinese line of ``reason`` (an English reason this package wrote), or ``None``."""
    if reason in REASONS_ZH:
        return REASONS_ZH[reason]
    for pattern, template in _PATTERNS:
        m = pattern.fullmatch(reason)
        if m is None:
            continue
        groups = m.groups()
        if template.startswith("NLI"):
            return template.format(a=groups[0], b=groups[1])
        role = ROLES_ZH.get(groups[0], groups[0] + " 模型")
        if "{lang}" in template:
            return template.format(role=role, lang=LANGUAGES_ZH.get(groups[1], groups[1]))
        if "{detail}" in template:
            return template.format(role=role, detail=groups[1])
        return template.format(role=role)
    return None
