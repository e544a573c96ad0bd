"""Data variants of choice questions, reproducible from a seed.

==================  ===========================================================
``shuffled``        the options permuted, the gold answer re-lettered (CK12 ``*``)
``distractors``     the options permuted, then about 10 options from other choice
                    questions *of the same subject* appended and lettered on
                    (CK12 ``**``; the released files keep the gold among the
                    first letters, and so does this)
``circular``        OpenCompass's CircularEval: each single-choice question once per
                    rotation of its options (``runners.circular``)
``options-N``       N options in all: the original ones plus options from
                    questions *of other subjects* in the question's language that share no character
                    (Chinese) or character 4-gram (English) with any gold option,
                    all shuffled (Xiezhi, which uses N = 50)
==================  ===========================================================

Each question's random generator is seeded by (seed, variant, question id), so
a question's variant does not depend on which other questions were selected or
in which order: shards and resumed runs see the same options. CK12's released
``shuffled`` and ``distractors`` files need none of this: import them with
``--variant`` and use them as they are.

Only single- and multiple-choice questions have variants (``circular``: single choice only), and not
those whose options are written in their stem (GAOKAO-Bench); the others are reported in
``VariantResult.skipped``.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from string import ascii_uppercase

from kg.errors import InputError
from kg.records import Option, Question
from runners.circular import CIRCULAR, circular_questions, why_not_circular

CK12_DISTRACTORS = 10
_OPTIONS_N = re.compile(r"^options-(\d+)$")
# Options that only make sense in their own list ("none of the above") are never moved to another.
_LIST_BOUND = re.compile(r"^(以上|上述|都|均|全|none of|all of|both)", re.IGNORECASE)


class VariantError(InputError, ValueError):
    """An unknown variant name, or a variant asked of a question that is already one (a one-line error)."""


@dataclass
class VariantResult:
    """The variant questions, and the ids of those that could not have one, with the reason."""

    questions: list[Question] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def parse_variant(name: str) -> tuple[str, int | None]:
    """``("shuffled", None)``, ``("distractors", None)``, ``("circular", None)`` or ``("options", N)``."""
    if name in ("original", "shuffled", "distractors", CIRCULAR):
        return name, None
    match = _OPTIONS_N.match(name)
    if match and int(match.group(1)) >= 2:
        return "options", int(match.group(1))
    raise VariantError(
        f"unknown variant {name!r}; expected original, shuffled, distractors, circular or options-N (N >= 2)"
    )


def make_variant(
    questions: Sequence[Question], variant: str, seed: int = 0, pool: Sequence[Question] | None = None
) -> VariantResult:
    """``variant`` of every choice question in ``questions``; options are drawn from ``pool`` (default: ``questions``)."""
    kind, n = parse_variant(variant)
    result = VariantResult()
    if kind == "original":
        result.questions = list(questions)
        return result
    source = _OptionSource(pool if pool is not None else questions)
    for question in questions:
        if question.variant != "original":
            raise VariantError(f"question {question.id} is already the {question.variant!r} variant")
        if kind == CIRCULAR:
            reason = why_not_circular(question)
            if reason is None:
                result.questions.extend(circular_questions(question))
            else:
                result.skipped.append((question.id, reason))
            continue
        if not question.is_choice:
            result.skipped.append((question.id, f"{question.type.value} questions have no {variant} variant"))
            continue
        if question.extra.get("options_in_stem"):
            result.skipped.append((question.id, "its options are written in its stem (GAOKAO-Bench): they stay put"))
            continue
        rng = random.Random(f"{seed}|{variant}|{question.id}")
        if kind == "shuffled":
            result.questions.append(shuffle_options(question, rng))
            continue
        if kind == "distractors":
            picked = source.draw_same_subject(question, CK12_DISTRACTORS, rng)
            if not picked:
                result.skipped.append((question.id, f"no other choice question of {question.subject} to draw from"))
                continue
            options = list(question.options)
            rng.shuffle(options)
            result.questions.append(_relabel(question, options, picked, "distractors", rng=None))
            continue
        assert n is not None
        wanted = n - len(question.options)
        if wanted < 0:
            result.skipped.append((question.id, f"already has {len(question.options)} options, more than {n}"))
            continue
        picked = source.draw_other_subjects(question, wanted, rng)
        if len(picked) < wanted:
            result.skipped.append((question.id, f"only {len(picked)} non-overlapping options to draw {wanted} from"))
            continue
        result.questions.append(_relabel(question, list(question.options), picked, variant, rng))
    return result


def shuffle_options(question: Question, rng: random.Random) -> Question:
    """``question`` with its options permuted and relabelled, the gold re-lettered to follow its text."""
    options = list(question.options)
    rng.shuffle(options)
    return _relabel(question, options, [], "shuffled", rng=None)


def labels(count: int) -> list[str]:
    """Option labels: A..Z, then AA, AB, ... (Xiezhi's 50 options need more than 26)."""
    out = []
    for i in range(count):
        label = ""
        i += 1
        while i:
            i, rem = divmod(i - 1, 26)
            label = ascii_uppercase[rem] + label
        out.append(label)
    return out


def _relabel(
    question: Question, ordered: list[Option], added: list[str], variant: str, rng: random.Random | None
) -> Question:
    """Options ``ordered`` then ``added`` texts (all shuffled when ``rng`` is given), relabelled from A.

    ``extra["variant_from"]`` keeps, per new option, its original label (``None`` for an added one).
    """
    entries: list[tuple[str | None, str]] = [(o.label, o.text) for o in ordered] + [(None, t) for t in added]
    if rng is not None:
        rng.shuffle(entries)
    new_labels = labels(len(entries))
    mapping = {old: new for (old, _), new in zip(entries, new_labels, strict=True) if old is not None}
    gold = [mapping[str(a)] for a in question.answer]
    if question.is_choice and len(gold) > 1:
        gold = sorted(gold, key=lambda lab: (len(lab), lab))
    return question.model_copy(
        update={
            "options": [Option(label=new, text=text) for new, (_, text) in zip(new_labels, entries, strict=True)],
            "answer": gold,
            "variant": variant,
            "extra": {**question.extra, "variant_from": [old for old, _ in entries]},
        }
    )


class _OptionSource:
    """Option texts of a pool of choice questions, unique and in a fixed order, for drawing extra options.

    Drawing visits the candidates in a random order and keeps the first that
    qualify, which picks uniformly among all qualifying subsets without testing
    every candidate for every question (Xiezhi's rule over a large bank).
    """

    def __init__(self, pool: Iterable[Question]) -> None:
        seen: dict[str, set[str]] = {}
        self._by_subject: dict[str, list[tuple[str, str, str]]] = {}
        self._language: dict[str, str] = {}
        for q in sorted((q for q in pool if q.is_choice), key=lambda q: q.id):
            keys = seen.setdefault(q.subject, set())
            for option in q.options:
                key = _key(option.text)
                if key and not _LIST_BOUND.match(key) and key not in keys:
                    keys.add(key)
                    self._by_subject.setdefault(q.subject, []).append((key, q.id, option.text))
                    self._language[q.id] = q.language
        self._others: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
        self._units: dict[tuple[str, str], frozenset[str]] = {}

    def draw_same_subject(self, question: Question, wanted: int, rng: random.Random) -> list[str]:
        """Up to ``wanted`` texts from other questions of the question's subject, none equal to one of its options."""
        own = {_key(o.text) for o in question.options}
        candidates = self._by_subject.get(question.subject, [])
        return _draw(candidates, wanted, rng, lambda key, qid: qid != question.id and key not in own)

    def draw_other_subjects(self, question: Question, wanted: int, rng: random.Random) -> list[str]:
        """Up to ``wanted`` texts from other subjects' questions of the question's language sharing no character /
        4-gram with a gold option (Xiezhi, whose Chinese and English benchmarks are apart: a bank holding both
        never gives a Chinese question English options)."""
        where = (question.subject, question.language)
        if where not in self._others:
            self._others[where] = [
                entry
                for subject in sorted(self._by_subject)
                if subject != question.subject
                for entry in self._by_subject[subject]
                if self._language[entry[1]] == question.language
            ]
        language = question.language
        gold = [o.text for o in question.options if o.label in question.answer]
        gold_units = frozenset().union(*(_units(g, language) for g in gold))
        short = [c for c in (_compact(g) for g in gold) if 0 < len(c) < 4] if language != "zh" else []
        own = {_key(o.text) for o in question.options}

        def accept(key: str, _qid: str) -> bool:
            units = self._units.get((key, language))
            if units is None:
                units = self._units[(key, language)] = _units(key, language)
            if key in own or units & gold_units:
                return False
            return not any(s in _compact(key) for s in short)

        return _draw(self._others[where], wanted, rng, accept)


def _draw(
    candidates: list[tuple[str, str, str]], wanted: int, rng: random.Random, accept: Callable[[str, str], bool]
) -> list[str]:
    """The first ``wanted`` accepted texts in a random order of ``candidates`` (all of them if fewer qualify)."""
    picked: list[str] = []
    tried: set[int] = set()
    # Random probes first (cheap when most candidates qualify), then a shuffled sweep of the rest.
    for _ in range(min(len(candidates), 20 * wanted + 20)):
        if len(picked) == wanted:
            return picked
        index = rng.randrange(len(candidates))
        if index in tried:
            continue
        tried.add(index)
        key, qid, text = candidates[index]
        if accept(key, qid):
            picked.append(text)
    rest = [i for i in range(len(candidates)) if i not in tried]
    rng.shuffle(rest)
    for index in rest:
        if len(picked) == wanted:
            break
        key, qid, text = candidates[index]
        if accept(key, qid):
            picked.append(text)
    return picked


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().lower()


def overlaps(gold_texts: Iterable[str], candidate: str, language: str) -> bool:
    """Xiezhi's rule: does ``candidate`` share a character (Chinese) or a 4-gram (English) with a gold text?

    Characters are letters and digits (punctuation and spaces are not counted).
    Xiezhi does not say whether its English 4-grams are of words or characters;
    characters are used here, because most options are shorter than four words.
    A gold text shorter than four characters overlaps any candidate containing it.
    """
    units = _units(candidate, language)
    for gold in gold_texts:
        if units & _units(gold, language):
            return True
        short = _compact(gold)
        if language != "zh" and 0 < len(short) < 4 and short in _compact(candidate):
            return True
    return False


def _units(text: str, language: str) -> frozenset[str]:
    """Letters and digits (Chinese) or character 4-grams (English) of a text."""
    compact = _compact(text)
    if language == "zh":
        return frozenset(c for c in compact if unicodedata.category(c)[0] in "LN")
    return frozenset(compact[i : i + 4] for i in range(len(compact) - 3))


def _compact(text: str) -> str:
    return re.sub(r"[^\w]+", " ", _key(text)).strip()
