"""Matching other harnesses' samples to the questions of a k12eval bank.

A bank question imported from C-Eval or CMMLU (CSV or the hub's Parquet) has the id
``<source>/<split>/<subject>/<n>``, where ``n`` is its row in the subject's file (C-Eval's
``id`` column and CMMLU's index column count rows from 0). lm-eval's ``doc_id`` and
OpenCompass's keys count the same rows of the same split, so a sample matches the question
with the same source, subject, split and position.

When the sample carries its question text (lm-eval's ``doc``), the match is checked: the
question and option texts (whitespace and full-width forms aside) must appear in the prompt
k12eval built for that question. If they do not, the question is looked up by text among
the subject's samples instead (where one question's text holds another's, the longest
match wins; two samples with the same texts are ambiguous and neither is taken); if that fails too the run stops with an error naming the sample's
file, line and field: the file belongs to another release or order of the data.
Samples whose task or dataset name is not C-Eval's or CMMLU's are matched by text only.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Sequence

from runners.backends.base import ChatMessages
from runners.backends.harness_logs import Sample

Key = tuple[str | None, str | None, str | None, int]


def normalized(text: str) -> str:
    """``text`` in NFKC with all whitespace removed, for comparing question texts."""
    return "".join(unicodedata.normalize("NFKC", text).split())


def prompt_text(prompt: str | ChatMessages) -> str:
    """The text of a prompt: itself, or its messages' contents joined."""
    if isinstance(prompt, str):
        return prompt
    return "\n".join(str(message.get("content", "")) for message in prompt)


def question_coordinates(question_id: str) -> Key | None:
    """``ceval/val/computer_network/3`` -> ``("ceval", "val", "computer_network", 3)``; ``None`` if not so shaped."""
    parts = question_id.split("/")
    if len(parts) not in (3, 4) or not parts[-1].isdigit():
        return None
    split = parts[1] if len(parts) == 4 else None
    return parts[0], split, parts[-2], int(parts[-1])


class SampleIndex:
    """Samples by their coordinates, and by subject for the look-up by text."""

    def __init__(self, samples: Sequence[Sample]) -> None:
        """Index ``samples``; a repeated coordinate keeps the first (lm-eval writes a line per filter)."""
        self.by_key: dict[Key, Sample] = {}
        self.by_subject: dict[tuple[str | None, str | None], list[Sample]] = defaultdict(list)
        self.unplaced: list[Sample] = []
        self.by_position: dict[tuple[str | None, str | None, int], Sample] = {}
        for sample in samples:
            if sample.source is None:
                self.unplaced.append(sample)
                continue
            self.by_key.setdefault((sample.source, sample.split, sample.subject, sample.position), sample)
            self.by_position.setdefault((sample.source, sample.subject, sample.position), sample)
            self.by_subject[(sample.source, sample.subject)].append(sample)
        self.samples = list(samples)  # keeps every sample alive: _pieces is keyed by id()
        # each sample's texts normalized once: a look-up by text compares them with many prompts
        self._pieces = {id(s): _pieces(s) for s in samples}

    def __len__(self) -> int:
        return len(self.by_key) + len(self.unplaced)

    def find(self, question_id: str, prompt: str | ChatMessages) -> Sample | None:
        """The sample recorded for this question, ``None`` when there is none.

        Raises :class:`~kg.errors.InputError` when the sample at the question's position
        has another question's text and no sample of the subject has this one.
        """
        text = normalized(prompt_text(prompt))
        where = question_coordinates(question_id)
        candidates = list(self.unplaced)
        positional = None
        if where is not None:
            source, split, subject, position = where
            positional = self.by_key.get((source, split, subject, position))
            if positional is None and split is None:  # a bank file outside a split folder
                positional = self.by_position.get((source, subject, position))
            if positional is not None and self._agrees(positional, text):
                return positional
            candidates = self.by_subject.get((source, subject), []) + candidates
        by_text = [s for s in candidates if s.question is not None and self._agrees(s, text)]
        lengths = {id(s): sum(map(len, self._pieces[id(s)])) for s in by_text}
        best = [s for s in by_text if lengths[id(s)] == max(lengths.values())]
        if len(best) == 1:
            return best[0]
        if positional is not None:
            found = "two samples of the subject have it" if best else "no other sample of the subject has it"
            raise positional.problem(
                positional.question_field,
                f"the question at position {positional.position} does not match bank question {question_id!r} "
                f"(its text is not in the prompt k12eval built, and {found}): "
                "the file was made from another release or order of the data",
            )
        return None

    def _agrees(self, sample: Sample, prompt: str) -> bool:
        """Whether the sample's question and option texts (those it has) are all in the prompt."""
        return all(piece in prompt for piece in self._pieces[id(sample)])


def _pieces(sample: Sample) -> tuple[str, ...]:
    """The sample's question and option texts, normalized, empty ones left out."""
    return tuple(p for p in (normalized(t) for t in (sample.question or "", *sample.choices)) if p)
