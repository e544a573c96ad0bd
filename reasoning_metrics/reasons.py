"""Why a score or a detector has no value: a reason code the records carry, worded in Chinese and English.

A record stores a reason as its code, with the code's arguments as a JSON list after a colon
(``no_model:["nli","zh"]``); :func:`reason` makes one, and the page and the command line word it
(:func:`worded`, in either language, from the one table :data:`WORDS`), each adding what it says of its own
(the command line names the flag that gives the model). Nothing downstream reads a reason's words back:
text that is not a code (a score file written before the codes; a guard's ``not scored (too long: ...)``)
is its own English wording and has no Chinese one.
"""

from __future__ import annotations

import json
from typing import Literal

Language = Literal["en", "zh"]

ROLES: dict[str, tuple[str, str]] = {
    "encoder": ("sentence encoder", "句子编码器"),
    "nli": ("NLI model", "NLI（推理判断）模型"),
    "lm": ("language model", "语言模型"),
    "grammar": ("grammar model", "语法模型"),
    "token_embedder": ("token-embedding model", "词向量模型"),
    "judge": ("judge model", "评审模型"),
    "prm": ("process reward model", "过程奖励模型"),
    "rollouts": ("rollout model", "续写模型"),
}
"""A model role as a reason names it, in English and in Chinese."""
LANGUAGES: dict[str, tuple[str, str]] = {"zh": ("Chinese", "中文"), "en": ("English", "英文")}

WORDS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "no_steps": ((), "the chain has no steps", "推理链没有步骤"),
    "no_reference": ((), "no reference chain given", "没有参考推理链（题目没有解析）"),
    "reference_no_steps": ((), "the reference has no steps", "解析没有步骤"),
    "source_no_sentences": ((), "the source has no sentences", "题目没有句子"),
    "lm_no_tokens": ((), "the language model found no tokens in a step", "语言模型在某一步中没有读到词元"),
    "no_model": (("role", "lang"), "no {role} model for {lang} text", "没有用于{lang_zh}文本的{role_zh}"),
    "not_loaded": (
        ("role", "spec", "detail"),
        "could not load {role} model {spec!r}: {detail}",
        "无法加载{role_zh}：{detail}",
    ),
    "nli_unanswered": (
        ("n", "total"),
        "the NLI model gave no answer for {n} of {total} pairs",
        "NLI 模型对 {n} / {total} 个句对没有给出结果",
    ),
    "nli_not_needed": (
        (),
        "no NLI model: none of the chosen metrics needs one and none was given",
        "没有 NLI（推理判断）模型：所选的分数都不需要它，也没有指定",
    ),
    "not_given": (("role",), "no {role_en} given", "没有指定{role_zh}"),
    "needs": (("role",), "needs {role_a}", "需要{role_zh}"),
    "judge_not_asked": ((), "no judge model given", "评分时没有指定评审模型，所以没有请大模型逐步复查"),
    "judge_unreadable": (
        ("detail",),
        "the judge gave no readable verdict ({detail})",
        "评审模型没有给出可读的结论（{detail}）",
    ),
    "prm_too_long": (
        (),
        "the process reward model could not score this chain (too long)",
        "解答太长，过程奖励模型无法评分",
    ),
    "no_similarities": (
        (),
        "no step similarities: no sentence encoder ran on this chain, or the question has no sentences",
        "没有步骤相似度：这条推理链没有经过句子编码器，或题目没有句子",
    ),
    "no_teacher_analysis": (
        (),
        "no reference: the question bank gives no teacher's analysis for this question",
        "没有参考：题库没有这道题的教师解析",
    ),
    "no_gold": ((), "no gold answer to compare continuations with", "没有标准答案可与续写比较"),
    "no_nli_result": ((), "no NLI result", "没有 NLI 结果"),
    "needs_combiner": ((), "needs a fitted combiner", "需要训练好的组合器"),
    "combiner_needs_encoder": (
        (),
        "the combiner was fitted with ROSCOE features",
        "组合器用 ROSCOE 特征训练，需要句子编码器",
    ),
    "not_computed": (("name",), "{name} was not computed", "没有计算 {name}"),
}
"""Reason code -> (its arguments, its English words, its Chinese words): the one table of both wordings."""


def reason(code: str, *args: object) -> str:
    """The stored form of a reason: ``code``, or ``code:[args...]`` (a JSON list) when it takes arguments."""
    names = WORDS[code][0]
    if len(args) != len(names):
        raise ValueError(f"reason {code!r} takes {len(names)} argument(s) ({', '.join(names)}), got {len(args)}")
    return code if not args else f"{code}:{json.dumps([str(a) for a in args], ensure_ascii=False)}"


def parse(text: str) -> tuple[str, dict[str, str]] | None:
    """``(code, {argument: value})`` of a stored reason, or ``None`` for text that is not a reason code."""
    code, sep, rest = text.partition(":")
    if code not in WORDS:
        return None
    names = WORDS[code][0]
    if not sep:
        return (code, {}) if not names else None
    try:
        values = json.loads(rest)
    except ValueError:
        return None
    if not isinstance(values, list) or len(values) != len(names):
        return None
    return code, dict(zip(names, map(str, values), strict=True))


def code_of(text: str) -> str | None:
    """The code of a stored reason (``not_loaded``...), ``None`` for other text."""
    parsed = parse(text)
    return None if parsed is None else parsed[0]


def worded(text: str, lang: Language = "en") -> str | None:
    """A stored reason in words of ``lang``; text that is not a code is its own English (``None`` in Chinese)."""
    parsed = parse(text)
    if parsed is None:
        return text if lang == "en" else None
    code, args = parsed
    _, english, chinese = WORDS[code]
    template = english if lang == "en" else chinese
    role = ROLES.get(args.get("role", ""), (args.get("role", ""), args.get("role", "")))
    language = LANGUAGES.get(args.get("lang", ""), (args.get("lang", ""), args.get("lang", "")))
    article = "an" if role[0][:1] in ("a", "e", "i", "o", "u", "N") else "a"  # an NLI model, a judge model
    names = {"role_en": role[0], "role_a": f"{article} {role[0]}", "role_zh": role[1]}
    return template.format(**args, **names, lang_en=language[0], lang_zh=language[1])
