"""Matching other harnesses' samples to the questions of a k12eval bank, so that no answer lands on another question.

**By the harness's own id.** A bank question imported from C-Eval or CMMLU (CSV or the hub's
Parquet) has the id ``<source>/<split>/<subject>/<n>``, where ``n`` is its row in the subject's file
(C-Eval's ``id`` column and CMMLU's index column count rows from 0). lm-eval's ``doc_id`` and
OpenCompass's keys count the same rows of the same split, so a sample matches the question with the
same source, subject, split and position. The match is checked by the texts the sample carries: its
question and option texts (whitespace and full-width forms aside) must be in the prompt k12eval built,
or, where it has no question text, the bank question's stem and options must be in the prompt the
harness rendered (a stem alone is not enough: CMMLU has dozens of ``下列说法正确的是``).
GAOKAO-Bench's results are placed the same way, by file and ``index`` (ids ``gaokao/<keyword>/<index>``);
its release corrected a few questions after the outputs were made, so a record there whose question is
nearly the bank's (``Sample.edited_at_least``) confirms it too, and ``matched_by`` says how alike they are.

**By text**, when the id does not place it (another task, another dataset, another order of the rows),
in one of two ways:

- the sample's question (lm-eval's ``doc``: ``question``, ``problem``, ``sentence``... see
  :mod:`runners.backends.harness_texts`) and options are in k12eval's prompt;
- or the bank question's stem and options are in the harness's rendered prompt (lm-eval's
  ``arguments``, OpenCompass's ``origin_prompt``).

Texts (question and options) shorter than :data:`~runners.backends.harness_texts.MIN_TEXT` in all
never match (a label such as kobest_copa's ``원인`` is in every prompt of its task). Where one sample's text holds another's, the
longest wins. Otherwise a text match is taken only when it is unique: two samples that fit are
**ambiguous**, and so is a sample that an earlier question already took. A question is then a failed
request whose error starts with its kind (:data:`FAILURES`), never another question's answer.

A sample at the question's position that has another question's text, when no sample of the subject
has this one, stops the run with an error naming the sample's file, line and field: the file belongs
to another release or order of the data.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any, Literal

from runners.backends.base import ChatMessages
from runners.backends.harness_logs import Sample
from runners.backends.harness_texts import MIN_TEXT, normalized

Key = tuple[str | None, str | None, str | None, int]
Group = tuple[str | None, str | None] | None
"""A placed sample's ``(source, subject)``; ``None`` for the samples no task name places."""
Failure = Literal["no recorded output", "ambiguous", "no question text"]
FAILURES: tuple[Failure, ...] = ("no recorded output", "ambiguous", "no question text")
"""The kinds of unmatched question; a failed request's error starts with one."""


def percent_alike(ratio: float) -> str:
    """A similarity ratio as a percentage cut (not rounded) to one decimal: two texts that differ never read
    ``100.0%`` (GAOKAO-Bench's corrected questions: 97.2 % to 99.9 %, where rounding printed two as 100.0 %)."""
    return f"{math.floor(ratio * 1000 + 1e-9) / 10:.1f}%"  # 1e-9: 0.972 * 1000 is 971.99...


@dataclass(frozen=True)
class Match:
    """The sample recorded for a question, and what tied it: ``position`` or the text (``doc.problem``, ``prompt``)."""

    sample: Sample
    by: str


@dataclass(frozen=True)
class Miss:
    """Why no sample is this question's: its kind and what was found."""

    kind: Failure
    detail: str


def prompt_text(prompt: str | ChatMessages) -> str:
    """The text of a prompt: itself, or its messages' contents joined."""
    if isinstance(prompt, str):
        return prompt
    return "\n".join(str(message.get("content", "")) for message in prompt)


def question_coordinates(question_id: str) -> Key | None:
    """``ceval/val/computer_network/3`` -> ``("ceval", "val", "computer_network", 3)``; ``None`` if not so shaped."""
    parts = question_id.split("/")
    if len(parts) not in (3, 4) or not (parts[-1].isascii() and parts[-1].isdigit()):
        return None
    split = parts[1] if len(parts) == 4 else None
    return parts[0], split, parts[-2], int(parts[-1])


class SampleIndex:
    """Samples by their coordinates, and by their texts for the look-up by text."""

    def __init__(self, samples: Sequence[Sample]) -> None:
        """Index ``samples``; a repeated coordinate keeps the first (lm-eval writes a line per filter)."""
        self.by_key: dict[Key, Sample] = {}
        self.unplaced: list[Sample] = []
        self.by_position: dict[tuple[str | None, str | None, int], Sample] = {}
        for sample in samples:
            if sample.source is None:
                self.unplaced.append(sample)
                continue
            self.by_key.setdefault((sample.source, sample.split, sample.subject, sample.position), sample)
            self.by_position.setdefault((sample.source, sample.subject, sample.position), sample)
        self.samples = list(samples)  # keeps every sample alive: the maps below are keyed by id()
        # each sample's texts normalized once: a look-up by text compares them with many prompts
        self._pieces = {id(s): _pieces(s) for s in samples}
        self._prompts = {id(s): normalized(s.prompt) for s in samples if s.prompt}
        self._taken: dict[int, str] = {}  # id(sample) -> the question it was given to
        # the look-up by text, by group (a placed sample's source and subject; None: unplaced): samples
        # with a question long enough to match by, by its first MIN_TEXT characters (a question in a
        # prompt starts at one of the prompt's MIN_TEXT-character windows: each prompt is read once,
        # not each sample compared with it), and the samples with only the harness's prompt to match by
        self._heads: dict[tuple[Group, str], list[Sample]] = defaultdict(list)
        self._prompt_only: dict[Group, list[Sample]] = defaultdict(list)
        self._short: dict[Group, list[Sample]] = defaultdict(list)
        # and those samples by every MIN_TEXT-th window of their prompt: a stem of 2 * MIN_TEXT - 1
        # characters or more covers one of those windows wherever it is in the prompt
        self._windows: dict[tuple[Group, str], list[Sample]] = defaultdict(list)
        self._first: dict[Group, Sample] = {}
        self._texted: set[Group] = set()
        for sample in samples:
            group = (sample.source, sample.subject) if sample.source is not None else None
            self._first.setdefault(group, sample)
            pieces = self._pieces[id(sample)]
            if self._usable(sample) and len(pieces[0]) >= MIN_TEXT:
                self._heads[(group, pieces[0][:MIN_TEXT])].append(sample)
            elif self._usable(sample):  # a short question whose options make it long enough: few, tried always
                self._short[group].append(sample)
            elif id(sample) in self._prompts:
                self._prompt_only[group].append(sample)
                rendered = self._prompts[id(sample)]
                for start in range(0, len(rendered) - MIN_TEXT + 1, MIN_TEXT):
                    self._windows[(group, rendered[start : start + MIN_TEXT])].append(sample)
            else:
                continue
            self._texted.add(group)

    def remember(self, given: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Mark as taken the samples named by earlier records' ``harness`` (its ``file`` and ``line`` or
        ``record``), each by its question; a record naming no sample of these files is passed over."""
        places: dict[tuple[str, Any], Sample] = {
            (str(s.file), s.line if s.line is not None else s.record): s for s in self.samples
        }
        for question_id, harness in given:
            where = harness.get("line", harness.get("record"))
            sample = places.get((str(harness.get("file")), where))
            if sample is not None:
                self._taken.setdefault(id(sample), question_id)

    def __len__(self) -> int:
        return len(self.by_key) + len(self.unplaced)

    def find(self, question_id: str, prompt: str | ChatMessages, texts: Sequence[str] = ()) -> Match | Miss:
        """The sample recorded for this question, or why there is none.

        ``texts`` are the bank question's own texts (its stem, then its options), for the
        look-up in the harness's prompts. Raises :class:`~kg.errors.InputError` when the sample
        at the question's position has another question's text and no sample of the subject has this one.
        """
        text = normalized(prompt_text(prompt))
        own = tuple(p for p in (normalized(t) for t in texts) if p)
        where = question_coordinates(question_id)
        groups: list[Group] = [None]
        positional = None
        if where is not None:
            source, split, subject, position = where
            positional = self.by_key.get((source, split, subject, position))
            if positional is None and split is None:  # a bank file outside a split folder
                positional = self.by_position.get((source, subject, position))
            if positional is not None and self._confirms(positional, text, own):
                return self._take(positional, question_id, "position")
            if positional is not None and (edited := self._edited(positional, own)) is not None:
                return self._take(positional, question_id, edited)
            groups.insert(0, (source, subject))
        candidates = self._candidates(groups, text, own)
        matched = {id(s): n for s in candidates if (n := self._match_length(s, text, own))}
        best = [s for s in candidates if matched.get(id(s)) == max(matched.values(), default=0)]
        if len(best) == 1:
            return self._take(best[0], question_id, self._by(best[0]))
        if positional is not None and positional.question is not None:  # the document says it is another question
            found = "two samples of the subject have it" if best else "no other sample of the subject has it"
            raise positional.problem(
                positional.question_field,
                f"the question at position {positional.position} does not match bank question {question_id!r} "
                f"(its text is not in the prompt k12eval built, and {found}): "
                "the file was made from another release or order of the data",
            )
        if positional is not None and not best:  # only a rendered prompt to tell: this question fails, named
            return Miss(
                "no recorded output",
                f"the record at its position ({positional.place()}) has a prompt without its stem or one of its "
                "options, and no other record has them",
            )
        if best:
            places = "; ".join(s.place() for s in best[:3])
            return Miss("ambiguous", f"{len(best)} records fit its text equally well ({places}); none is taken")
        present = [self._first[g] for g in groups if g in self._first]
        if present and not self._texted.intersection(groups):
            field = present[0].question_field
            return Miss(
                "no question text",
                f"its records carry no question text ({field}: none at least {MIN_TEXT} "
                "characters long) and no prompt, "
                "and only C-Eval and CMMLU questions (ids <source>/<split>/<subject>/<n>) are placed by position",
            )
        return Miss("no recorded output", "no record has its position or its text")

    def _candidates(self, groups: list[Group], text: str, own: tuple[str, ...]) -> list[Sample]:
        """The samples of ``groups`` that may match: those whose question starts at one of the windows
        of k12eval's prompt ``text``, and those with only the harness's prompt whose windows the stem covers."""
        found: dict[int, Sample] = {}
        stem = own[0] if own else ""
        for group in groups:
            for start in range(len(text) - MIN_TEXT + 1):
                for sample in self._heads.get((group, text[start : start + MIN_TEXT]), ()):
                    found.setdefault(id(sample), sample)
            for sample in self._short.get(group, ()):
                found.setdefault(id(sample), sample)
            if len(stem) < 2 * MIN_TEXT - 1:  # too short to be sure to cover a window: every one is tried
                prompt_only: Sequence[Sample] = self._prompt_only.get(group, ())
            else:
                windows = (self._windows.get((group, stem[i : i + MIN_TEXT]), ()) for i in range(MIN_TEXT))
                prompt_only = [sample for window in windows for sample in window]
            for sample in prompt_only:
                found.setdefault(id(sample), sample)
        return list(found.values())

    def _confirms(self, sample: Sample, prompt: str, own: tuple[str, ...]) -> bool:
        """Whether the texts a sample at the question's position carries agree with the question."""
        if self._pieces[id(sample)]:
            return all(piece in prompt for piece in self._pieces[id(sample)])
        rendered = self._prompts.get(id(sample))
        if rendered is not None and own:  # the options too: CMMLU has many stems "下列说法正确的是"
            return all(piece in rendered for piece in own)
        return True  # nothing to check it by: the harness's id places it

    def _edited(self, sample: Sample, own: tuple[str, ...]) -> str | None:
        """How a sample at the question's position whose question text differs from the bank's still confirms it:
        ``position, text edited (97.2% alike)`` when the texts are at least ``sample.edited_at_least`` alike (a
        release that corrected a question after its outputs were made); ``None`` otherwise."""
        pieces = self._pieces[id(sample)]
        if sample.edited_at_least is None or not pieces or not own:
            return None
        alike = SequenceMatcher(None, pieces[0], own[0], autojunk=False).ratio()
        return f"position, text edited ({percent_alike(alike)} alike)" if alike >= sample.edited_at_least else None

    def _match_length(self, sample: Sample, prompt: str, own: tuple[str, ...]) -> int:
        """How much text ties ``sample`` to the question (0: it does not fit).

        Its question and options in k12eval's prompt; or, without a question text long enough to
        match by, the bank's stem and options in the prompt the harness rendered. Either way the
        texts compared come to at least :data:`MIN_TEXT` characters.
        """
        if self._usable(sample):
            pieces = self._pieces[id(sample)]
            return sum(map(len, pieces)) if all(piece in prompt for piece in pieces) else 0
        rendered = self._prompts.get(id(sample))
        if rendered is None or sum(map(len, own)) < MIN_TEXT:
            return 0
        return sum(map(len, own)) if all(piece in rendered for piece in own) else 0

    def _usable(self, sample: Sample) -> bool:
        """Whether the sample's question and options are text enough to match by (a label is not)."""
        pieces = self._pieces[id(sample)]
        return sample.question is not None and sum(map(len, pieces)) >= MIN_TEXT

    def _take(self, sample: Sample, question_id: str, by: str) -> Match | Miss:
        """``sample``, now this question's; a :class:`Miss` when another question already took it."""
        taken = self._taken.setdefault(id(sample), question_id)
        if taken != question_id:
            return Miss("ambiguous", f"{sample.place()} fits it, but was already given to question {taken!r}")
        return Match(sample, by)

    def _by(self, sample: Sample) -> str:
        """The text a sample matched by: its question field, or the harness's prompt."""
        return sample.question_field if self._usable(sample) else "prompt"


def _pieces(sample: Sample) -> tuple[str, ...]:
    """The sample's question and option texts, normalized, empty ones left out; none without a question."""
    if sample.question is None:
        return ()
    return tuple(p for p in (normalized(t) for t in (sample.question, *sample.choices)) if p)
