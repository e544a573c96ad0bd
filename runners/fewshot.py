"""Few-shot exemplars: chosen per subject and type from a dev split, fitted to a token budget.

The CK12 protocol shows 5 exemplars of the question's subject and type; if the
prompt passes 1,024 tokens it shows 3, then 1 (the paper; the released evaluator
counts 2,048 characters instead: pass ``count_tokens=len, budget=2048`` to
reproduce it). CMMLU's template set drops the longest exemplar until it fits.
An exemplar is never the question itself nor a question with the same stem, and a pool read from a
bank with splits gives only its exemplar split (dev; Xiezhi's train), never the split being scored
(:class:`PoolRule`, from the benchmark's protocol).
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from kg.errors import InputError, SettingError
from kg.records import Question, QuestionType
from runners.prompting import Exemplar, Language, Prompt, build_prompt
from runners.records import Mode, mode_info
from runners.templates import TemplateSet, load_template_set

DEFAULT_SHOTS = 5
DEFAULT_BUDGET = 1024
"""Tokens, by the model's own tokenizer (CK12 paper)."""

CountTokens = Callable[[str], int]

ExemplarMatch = Literal["subject-type", "shared-labels"]
"""Which exemplars fit a question. ``subject-type``: the question's subject and type (CK12, CMMLU, C-Eval);
``shared-labels``: its type, sharing at least two discipline labels with it whatever its 门类, or its one
label when it has one (Xiezhi's rule; two cannot be shared then, and the released code takes exemplars
label by label)."""


@dataclass(frozen=True)
class PoolRule:
    """Which of a pool's questions may be exemplars, and how they are matched to a question."""

    split: str | None = None
    """The split exemplars come from when the pool's questions carry splits (``dev``; Xiezhi's ``train``)."""
    scored: str | None = None
    """The split being scored (``all``: every one): never a source of exemplars."""
    match: ExemplarMatch = "subject-type"


def stem_key(text: str) -> str:
    """A stem reduced for comparison: width-folded, without whitespace, lower case."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).lower()


class ExemplarPool:
    """Exemplars indexed by subject and type, each group in a fixed, seeded order.

    With ``seed=None`` the given order is kept (e.g. CK12's released example
    files, whose first five are the paper's); otherwise each group is sorted by
    id and shuffled with a generator seeded by (seed, subject, type), so the
    choice does not depend on the order the dev split was read in, and every
    question of a subject and type sees the same exemplars.
    """

    def __init__(
        self, exemplars: Iterable[Exemplar], seed: int | None = 0, match: ExemplarMatch = "subject-type"
    ) -> None:
        groups: dict[tuple[str, QuestionType], list[Exemplar]] = {}
        for exemplar in exemplars:
            groups.setdefault((exemplar.subject, exemplar.type), []).append(exemplar)
        if seed is not None:
            for (subject, qtype), group in groups.items():
                group.sort(key=lambda e: e.id)
                random.Random(f"{seed}|{subject}|{qtype.value}").shuffle(group)
        self._groups = groups
        self.seed = seed
        self.match = match

    @classmethod
    def from_questions(
        cls, questions: Iterable[Question], seed: int | None = 0, match: ExemplarMatch = "subject-type"
    ) -> ExemplarPool:
        """A pool from a dev split's questions."""
        return cls((Exemplar.from_question(q) for q in questions), seed=seed, match=match)

    def __iter__(self) -> Iterator[Exemplar]:
        for key in sorted(self._groups, key=lambda k: (k[0], k[1].value)):
            yield from self._groups[key]

    def __len__(self) -> int:
        return sum(len(g) for g in self._groups.values())

    def _candidates(self, question: Question) -> list[Exemplar]:
        """The exemplars that fit ``question`` by the pool's :data:`ExemplarMatch`."""
        if self.match == "subject-type":
            return self._groups.get((question.subject, question.type), [])
        labels = _labels(question)
        shared = min(2, len(labels))
        if not shared:
            return []
        return [e for e in self if e.type is question.type and len(labels & _labels(e.question)) >= shared]

    def select(self, question: Question, k: int = DEFAULT_SHOTS, cot: bool = False) -> list[Exemplar]:
        """Up to ``k`` exemplars for ``question``: same subject and type, never the question or its stem.

        For CoT, exemplars without an analysis are passed over (they would show no reasoning).
        """
        key = stem_key(question.stem)
        chosen: list[Exemplar] = []
        for exemplar in self._candidates(question):
            if len(chosen) == k:
                break
            if exemplar.id == question.id or _same_stem(key, exemplar):
                continue
            if cot and not exemplar.analysis.strip():
                continue
            chosen.append(exemplar)
        return chosen


def _labels(question: Question | None) -> set[str]:
    labels = question.extra.get("labels") if question is not None else None
    return {str(x) for x in labels} if isinstance(labels, list) else set()


def _same_stem(key: str, exemplar: Exemplar) -> bool:
    if stem_key(exemplar.stem) == key:
        return True
    # Ready-written exemplars carry stem and options in one text: look for the stem inside it.
    return exemplar.question is None and len(key) >= 8 and key in stem_key(exemplar.text or exemplar.stem)


def fit_prompt(
    question: Question,
    mode: Mode,
    lang: Language,
    pool: ExemplarPool | None,
    *,
    count_tokens: CountTokens | None = None,
    budget: int = DEFAULT_BUDGET,
    shots: int = DEFAULT_SHOTS,
    template_set: str | TemplateSet = "ck12",
) -> Prompt:
    """The prompt for ``question``, with as many exemplars as the budget allows.

    Zero-shot modes ignore the pool. Without ``count_tokens`` no budget applies.
    ``ck12`` template sets try ``shots``, then 3, then 1 exemplar and keep 1 even
    if it is still over (``Prompt.over_budget``); ``drop-longest`` sets drop the
    longest exemplar (by tokens; exemplars tied for longest together, as CMMLU's released
    ``gen_prompt`` does) until the prompt fits, down to none.
    """
    templates = template_set if isinstance(template_set, TemplateSet) else load_template_set(template_set, lang)
    if not mode_info(mode).few_shot or pool is None:
        return build_prompt(question, mode, lang, (), templates)
    exemplars = pool.select(question, shots, cot=mode_info(mode).cot)
    if count_tokens is None:
        return build_prompt(question, mode, lang, exemplars, templates)

    def build(chosen: Sequence[Exemplar]) -> tuple[Prompt, bool]:
        prompt = build_prompt(question, mode, lang, chosen, templates)
        return prompt, count_tokens(prompt.text) <= budget

    if templates.fewshot_fallback == "drop-longest":
        chosen = list(exemplars)
        prompt, fits = build(chosen)
        while not fits and chosen:
            # CMMLU's gen_prompt drops every exemplar of the longest length at once (ties go together).
            sizes = [count_tokens(_exemplar_text(e)) for e in chosen]
            chosen = [e for e, size in zip(chosen, sizes, strict=True) if size != max(sizes)]
            prompt, fits = build(chosen)
        return prompt if fits else replace(prompt, over_budget=True)

    steps = [len(exemplars)] + [n for n in (3, 1) if n < len(exemplars)]
    prompt, fits = build(exemplars)
    for n in steps[1:]:
        if fits:
            break
        prompt, fits = build(exemplars[:n])
    return prompt if fits else replace(prompt, over_budget=True)


def _exemplar_text(exemplar: Exemplar) -> str:
    return (exemplar.text or exemplar.stem) + exemplar.analysis


def is_ck12_examples_file(path: Path) -> bool:
    """Whether ``path`` is a CK12 released example file: a JSON object ``{subject: {type: [...]}}``.

    Told by its layout, not its name, so a renamed copy still loads; a question bank (JSONL, CSV,
    a folder) is not one.
    """
    if not path.is_file() or path.suffix.lower() != ".json":
        return False
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(data, dict) and bool(data) and all(isinstance(v, dict) for v in data.values())


def load_exemplar_pool(
    path: Path,
    seed: int | None = 0,
    mode: Mode | None = None,
    *,
    rule: PoolRule | None = None,
    skip_invalid: bool = False,
    taxonomy: Path | None = None,
    mapping: Path | None = None,
) -> ExemplarPool:
    """The exemplars of ``--few-shot PATH``: CK12's released example files as they are, in their order
    (the first five are the paper's), or any question bank's questions in a seeded order; of a bank whose
    questions carry splits, only ``rule.split``'s (:func:`pool_questions`). ``skip_invalid``, ``taxonomy`` and
    ``mapping`` read the bank as ``run`` reads its own: a file whose format its layout does not tell (a bank of
    your own) through the run's mapping. With ``mode``, a pool that ``mode`` could show no exemplar of is
    refused (:func:`check_pool`)."""
    rule = rule or PoolRule()
    if is_ck12_examples_file(path):
        pool = ExemplarPool(load_ck12_examples(path), seed=None, match=rule.match)
    else:
        from kg.importers import load_questions

        own = mapping if mapping is not None and _layout_unknown(path) else None
        questions = load_questions(path, skip_invalid=skip_invalid, taxonomy=taxonomy, mapping=own).questions
        pool = ExemplarPool.from_questions(pool_questions(questions, rule, path), seed=seed, match=rule.match)
    if mode is not None:
        check_pool(pool, mode, path)
    return pool


def _layout_unknown(path: Path) -> bool:
    """Whether no importer recognises ``path`` by its layout (a bank of your own, read through a mapping)."""
    from kg.importers import detect_format

    try:
        detect_format(path)
    except InputError:
        return True
    return False


def pool_questions(questions: Sequence[Question], rule: PoolRule, path: Path) -> list[Question]:
    """The questions of a pool read from ``path`` that may be exemplars under ``rule``.

    A pool whose questions carry no split (a bank of your own, CK12) is used whole; the question being
    asked and any with its stem are passed over later, per question. Of a pool with splits, only
    ``rule.split``'s questions; an :class:`InputError` naming the splits it has when that gives none, or
    when ``rule.split`` is the split being scored (a scored question, answer and all, would be shown).
    """
    splits = Counter(q.split for q in questions if q.split is not None)
    if not splits or rule.split is None:
        return list(questions)
    held = ", ".join(f"{name} ({count})" for name, count in splits.most_common())
    if rule.scored in (rule.split, "all"):
        raise SettingError(
            "few_shot",
            path,
            quoted=False,
            problem=lambda name: (
                f"its exemplars would come from the {rule.split} split, which this run scores "
                f"({name('split', rule.scored)}); score another split, or take exemplars from a bank of your own"
            ),
        )
    chosen = [q for q in questions if q.split == rule.split]
    if not chosen:
        raise SettingError(
            "few_shot",
            path,
            quoted=False,
            problem=f"no {rule.split} question here (it holds {held}); exemplars come from the {rule.split} split, never "
            f"from the one scored: point it at the release root or its {rule.split}/",
        )
    return chosen


def check_pool(pool: ExemplarPool, mode: Mode, path: Path) -> None:
    """Refuse a pool a few-shot ``mode`` would show no exemplar of: every prompt would silently be zero-shot.

    Empty, or, for few-shot-CoT, without one exemplar that has an analysis to show as its reasoning (CK12's
    ``few_shot_examples.json`` has none: its CoT exemplars are in ``few_shot_cot_examples.json``). A pool that
    lacks only some subjects or types is used as it is (CK12's own CoT file has no English cloze exemplar, and
    its released evaluator asks those questions with none); each record's ``shots`` says how many it showed.
    """
    info = mode_info(mode)
    if not info.few_shot:
        return
    if not len(pool):
        raise SettingError(
            "few_shot", path, lambda name: f"holds no exemplar; {name('mode', mode)} needs some", quoted=False
        )
    if info.cot and not any(e.analysis.strip() for e in pool):
        raise SettingError(
            "few_shot",
            path,
            quoted=False,
            problem=lambda name: (
                f"none of its {len(pool)} exemplars has an analysis (a worked solution), so "
                f"{name('mode', mode)} would show none; give exemplars with analyses (CK12: "
                f"few_shot_cot_examples.json), or use {name('mode', 'few-shot')}"
            ),
        )


def load_ck12_examples(path: Path) -> list[Exemplar]:
    """CK12's released ``few_shot_examples.json`` / ``few_shot_cot_examples.json`` as exemplars.

    Their records hold the stem with the options already written in, so they are
    shown as they are. Use ``ExemplarPool(..., seed=None)`` to keep their order.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read few-shot examples ({exc.strerror})") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected an object {{subject: {{type: [examples]}}}}")
    exemplars: list[Exemplar] = []
    for subject, by_type in data.items():
        if not isinstance(by_type, dict):
            raise InputError(f"{path}, subject {subject!r}: expected an object {{type: [examples]}}")
        for type_name, items in by_type.items():
            try:
                qtype = QuestionType.parse(type_name)
            except ValueError as exc:
                raise InputError(f"{path}, subject {subject!r}: {exc}") from exc
            if not isinstance(items, list):
                raise InputError(f"{path}, {subject}/{type_name}: expected a list of examples")
            for i, item in enumerate(items):
                where = f"{path}, {subject}/{type_name} example {i + 1}"
                exemplars.append(_ck12_example(item, subject, qtype, f"{subject}/{type_name}/{i}", where))
    return exemplars


def _ck12_example(item: object, subject: str, qtype: QuestionType, default_id: str, where: str) -> Exemplar:
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected an object with 'prompt' and 'answer'")
    for key in ("prompt", "answer"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            raise InputError(f"{where}, field '{key}': expected a non-empty string")
    analysis = item.get("analysis", "")
    if not isinstance(analysis, str):
        raise InputError(f"{where}, field 'analysis': expected a string")
    text = item["prompt"].strip()
    return Exemplar(
        id=str(item.get("id") or default_id),
        subject=subject,
        type=qtype,
        stem=text,
        analysis=analysis,
        text=text,
        answer_text=item["answer"].strip(),
    )
