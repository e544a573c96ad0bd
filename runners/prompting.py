"""Questions to prompts: pure functions over records; all wording comes from a template set.

::

    prompt = build_prompt(question, "few-shot", "zh", exemplars)
    as_chat(prompt)      # chat models: messages; the backend applies the chat template
    as_text(prompt)      # base models: the plain text
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from kg.records import Question, QuestionType
from runners.records import Mode, mode_info
from runners.templates import MODES, TemplateSet, fill, load_template_set

Language = Literal["zh", "en"]
ChatMessages = list[dict[str, str]]

_PARAGRAPHS = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Exemplar:
    """One worked example for a few-shot prompt.

    Built from a :class:`Question` (its options and gold answer are written by the
    template set) or, for example files that store ready-written text (CK12's
    ``few_shot_examples.json``), from that text and answer string as they are.
    """

    id: str
    subject: str
    type: QuestionType
    stem: str
    """The stem, used to keep an exemplar from showing the question being asked."""
    analysis: str = ""
    question: Question | None = None
    text: str | None = None
    """Ready-written question text (options included), when there is no ``question``."""
    answer_text: str | None = None
    """Ready-written answer, when there is no ``question``."""

    @classmethod
    def from_question(cls, question: Question) -> Exemplar:
        """An exemplar showing ``question`` with its gold answer and analysis."""
        return cls(
            id=question.id,
            subject=question.subject,
            type=question.type,
            stem=question.stem,
            analysis=question.analysis,
            question=question,
        )

    def fingerprint(self) -> str:
        """What identifies this exemplar's content (for the template hash)."""
        if self.question is not None:
            return self.question.model_dump_json()
        return json.dumps([self.id, self.text, self.answer_text, self.analysis], ensure_ascii=False)


@dataclass(frozen=True)
class Prompt:
    """A prompt ready for a backend, with what it was built from."""

    text: str
    question_id: str
    mode: Mode
    language: Language
    template_set: str
    template_hash: str
    exemplar_ids: tuple[str, ...] = ()
    system: str = ""
    stop: tuple[str, ...] = field(default=())
    """Stop sequences for base models (the next example's marker)."""
    over_budget: bool = False
    """The prompt passes the few-shot token budget even with the fewest exemplars allowed."""

    @property
    def shots(self) -> int:
        """Number of exemplars shown."""
        return len(self.exemplar_ids)


def build_prompt(
    question: Question,
    mode: Mode,
    lang: Language = "zh",
    exemplars: Sequence[Exemplar] = (),
    template_set: str | TemplateSet = "ck12",
) -> Prompt:
    """The prompt for ``question`` in ``mode``; few-shot modes show ``exemplars`` in order.

    Raises :class:`~runners.templates.TemplateError` when the template set has no
    template for the question's type, and ``ValueError`` for exemplars in a
    zero-shot mode. A few-shot mode with no exemplars is allowed (the CK12
    release has subjects without examples for some types): the prompt keeps the
    few-shot wording and shows none.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    templates = template_set if isinstance(template_set, TemplateSet) else load_template_set(template_set, lang)
    few_shot = mode_info(mode).few_shot
    if exemplars and not few_shot:
        raise ValueError(f"{mode} takes no exemplars, got {len(exemplars)}")
    cot = mode_info(mode).cot
    values = question_fields(question, templates)
    phrases = {
        name: fill(text, values) for name, text in templates.phrases_for(question.type, task_of(question)).items()
    }
    values["exemplars"] = "".join(
        render_exemplar(ex, i, templates, cot, phrases) for i, ex in enumerate(exemplars, start=1)
    )
    text = fill(templates.layout[mode], {**values, **phrases})
    return Prompt(
        text=text,
        question_id=question.id,
        mode=mode,
        language=templates.language,
        template_set=templates.name,
        template_hash=templates.hash(),
        exemplar_ids=tuple(ex.id for ex in exemplars),
        system=templates.system,
        stop=tuple(templates.stop),
    )


def task_of(question: Question) -> str | None:
    """The release file a question came from, when its importer says (GAOKAO-Bench: ``extra["task"]``), for a
    template set that words each file's instruction (:attr:`runners.templates.TemplateSet.tasks`)."""
    task = question.extra.get("task")
    return task if isinstance(task, str) else None


def question_fields(question: Question, templates: TemplateSet) -> dict[str, str]:
    """The placeholder values a question provides: its body, options, subject, option count and letters."""
    render = templates.render
    options = render_options(question, templates)
    body = fill(render.question, {"stem": question.stem, "options": options}) if options else question.stem
    labels = question.option_labels if question.type is not QuestionType.CLOZE else []
    return {
        "question": body,
        "stem": question.stem,
        "options": options,
        "subject": templates.subjects.get(question.subject, question.subject),
        "option_count": _count_word(len(labels), render.number_words),
        "letters": _letters(labels, render.letter_range),
    }


def render_options(question: Question, templates: TemplateSet) -> str:
    """Options (or judgment statements) as the template set writes them; cloze options one line per blank."""
    render = templates.render
    if question.type is QuestionType.CLOZE:
        lines = []
        for number, group in enumerate(question.blanks(), start=1):
            written = render.cloze_option_joiner.join(
                fill(render.option, {"label": o.label, "text": o.text}) for o in group
            )
            lines.append(fill(render.cloze_blank, {"blank": str(number), "options": written}))
        return "\n".join(lines)
    return render.option_joiner.join(fill(render.option, {"label": o.label, "text": o.text}) for o in question.options)


def render_answer(question: Question, templates: TemplateSet) -> str:
    """The gold answer as an exemplar shows it (``B``, ``BD``, ``1. T 2. F``, ``右；1``, ``1. B 2. A``)."""
    render = templates.render
    answer = question.answer
    if question.type is QuestionType.JUDGMENT:
        words = [render.judgment_true if value else render.judgment_false for value in answer]
        if len(words) == 1:
            return words[0]
        return render.item_joiner.join(
            fill(render.judgment_item, {"index": str(i), "value": w}) for i, w in enumerate(words, start=1)
        )
    if question.type is QuestionType.FILL:
        return render.fill_joiner.join(str(a) for a in answer)
    if question.type is QuestionType.CLOZE:
        return render.item_joiner.join(
            fill(render.cloze_item, {"index": str(i), "letter": str(a)}) for i, a in enumerate(answer, start=1)
        )
    if render.choice_answer == "text" and question.type is QuestionType.SINGLE:
        texts = {o.label: o.text for o in question.options}
        return str(texts.get(str(answer[0]), answer[0]))
    return render.letter_joiner.join(str(a) for a in answer)


def number_steps(analysis: str, templates: TemplateSet) -> str:
    """The analysis as numbered steps, one per paragraph (CK12's released few-shot-CoT format)."""
    render = templates.render
    steps = [p.strip() for p in _PARAGRAPHS.split(analysis.strip()) if p.strip()]
    return render.analysis_joiner.join(
        fill(render.analysis_step, {"index": str(i), "text": step}) for i, step in enumerate(steps, start=1)
    )


def render_exemplar(
    exemplar: Exemplar, index: int, templates: TemplateSet, cot: bool, phrases: Mapping[str, str] | None = None
) -> str:
    """One exemplar written with the set's ``exemplar`` (or ``exemplar-cot``) layout, numbered ``index``.

    ``phrases`` are the asking question's phrases, already filled in; by default
    the exemplar's own type's phrases, filled from the exemplar.
    """
    if exemplar.question is not None:
        fields = question_fields(exemplar.question, templates)
        body = fields["question"]
        answer = render_answer(exemplar.question, templates)
    else:
        fields = {
            "question": exemplar.text or exemplar.stem,
            "stem": exemplar.stem,
            "options": "",
            "subject": templates.subjects.get(exemplar.subject, exemplar.subject),
            "option_count": "",
            "letters": "",
        }
        body = fields["question"]
        answer = exemplar.answer_text or ""
    if phrases is None:
        task = task_of(exemplar.question) if exemplar.question is not None else None
        phrases = {name: fill(text, fields) for name, text in templates.phrases_for(exemplar.type, task).items()}
    values = {
        "index": str(index),
        "question": body.strip(),
        "answer": answer,
        "analysis": number_steps(exemplar.analysis, templates),
    }
    return fill(templates.layout["exemplar-cot" if cot else "exemplar"], {**phrases, **values})


def as_chat(prompt: Prompt) -> ChatMessages:
    """The prompt as chat messages (a system message only when the template set has one)."""
    messages: ChatMessages = []
    if prompt.system:
        messages.append({"role": "system", "content": prompt.system})
    messages.append({"role": "user", "content": prompt.text})
    return messages


def as_text(prompt: Prompt) -> str:
    """The prompt as plain text for base models (a system text, if any, comes first)."""
    return f"{prompt.system}\n\n{prompt.text}" if prompt.system else prompt.text


def prompt_hash(prompt: str | ChatMessages) -> str:
    """A short, stable hash of the text or messages actually sent (``RunRecord.prompt_hash``)."""
    canonical = prompt if isinstance(prompt, str) else json.dumps(prompt, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def template_hash(templates: str | TemplateSet, lang: Language = "zh", exemplars: Sequence[Exemplar] = ()) -> str:
    """Hash of a template set and the exemplars a run may show (``RunHeader.template_hash``).

    The exemplars are hashed as a set (by content, in id order), so the same pool
    hashes the same whatever order it was loaded in.
    """
    ts = templates if isinstance(templates, TemplateSet) else load_template_set(templates, lang)
    digest = hashlib.sha256(ts.hash().encode())
    for fingerprint in sorted(ex.fingerprint() for ex in exemplars):
        digest.update(b"\0" + fingerprint.encode("utf-8"))
    return digest.hexdigest()[:16]


def _count_word(count: int, words: list[str]) -> str:
    return words[count] if count < len(words) else str(count)


def _letters(labels: list[str], letter_range: str) -> str:
    if len(labels) <= 8:
        return "".join(labels)
    return fill(letter_range, {"first": labels[0], "last": labels[-1]})
