"""What one answer counts toward accuracy: one rule for ``run``'s summary and for every table of ``report``.

Accuracy is over what was asked. A question is *asked* when its record holds an answer: a text
(``ok`` or ``unparsed``: an unreadable answer is a wrong one) or option scores. A ``failed`` record
(the backend gave no answer: a request that failed, or a replayed file with no answer for the
question) and a ``skipped`` one (cloze, which CK12 does not score) are not asked, and neither is a
question of the run with no record yet: they count nowhere, not as wrong. Tables say how many were
asked of how many the run's bank holds.

A question counts as one unit, except a judgment question under a per-statement rule
(:data:`JudgmentRule`), which counts its statements.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, get_args

from kg.errors import InputError
from runners.ck12_release import release_judgment
from runners.records import HEADER_FILE

if TYPE_CHECKING:
    from pathlib import Path

    from runners.records import RunHeader

JudgmentRule = Literal["per-item", "per-statement", "ck12-release"]
"""How a judgment question (one or more true/false statements) counts.

``per-statement``: each statement is a unit, right when k12eval's extraction read its verdict right; a
statement without a verdict counts as wrong. ``per-item``: the question is one unit, right only when every
statement is (k12eval's strictest rule: neither the CK12 paper nor its release states it).
``ck12-release``: the released evaluator's count (:func:`runners.ck12_release.release_judgment`): verdicts
found anywhere in the output, zipped with the statements; statements beyond them are not counted."""
JUDGMENT_RULES: tuple[JudgmentRule, ...] = get_args(JudgmentRule)

DEFAULT_JUDGMENT_RULE: JudgmentRule = "per-statement"
"""Every bundled protocol's rule, and the report's for runs made before the protocol was recorded."""

JUDGMENT_RULE_NAMES: dict[JudgmentRule, tuple[str, str]] = {
    "per-statement": ("按判断计分", "per statement"),
    "per-item": ("按题计分", "per item"),
    "ck12-release": ("按 CK12 发布的评分脚本计分", "by CK12's released scorer"),
}
"""How printed summaries name each rule, in Chinese and in English ("judgment counted per statement")."""


def judgment_rule(value: object, field: str) -> JudgmentRule:
    """``value`` as a judgment rule, or an :class:`InputError` naming ``field``, where it was read (``run.json``'s
    ``protocol.judgment_rule``, a question frame's ``judgment_rule`` column, the ``judgment`` argument), and the
    rules. The one check of a rule read from anywhere but a setting (a setting's is
    :func:`runners.options.choose`, which words it as the edge names the setting)."""
    for rule in JUDGMENT_RULES:
        if str(value) == rule:
            return rule
    raise InputError(f"{field} {str(value)!r}: choose one of {', '.join(JUDGMENT_RULES)}")


def header_judgment_rule(header: RunHeader, path: Path | None = None) -> JudgmentRule:
    """The judgment rule a run's protocol names (``run.json``'s ``protocol.judgment_rule``; runs made before it
    was recorded: :data:`DEFAULT_JUDGMENT_RULE`), checked by :func:`judgment_rule`: what ``run``'s summary, its
    lm-eval results and ``report`` count a run's judgment questions by. ``path``: the ``run.json`` read, which the
    error names (:meth:`runners.store.RunStore.read_header` checks every header it reads so: ``report`` over
    several runs says which one is bad)."""
    named = (header.protocol or {}).get("judgment_rule", DEFAULT_JUDGMENT_RULE)
    return judgment_rule(named, f"{path or HEADER_FILE}: protocol.judgment_rule")


ASKED_STATUSES = ("ok", "unparsed")
"""Parse statuses of an asked question."""


@dataclass(frozen=True)
class Units:
    """What one asked question counts: ``right`` of ``counted`` units."""

    right: int
    counted: int


class Counted(Protocol):
    """What counting reads of a record: a :class:`~runners.records.RunRecord`, or the part of one a report
    keeps for every answered question (``reports.runs.Answered``)."""

    @property
    def type(self) -> str: ...
    @property
    def parse_status(self) -> str: ...
    @property
    def correct(self) -> bool | None: ...
    @property
    def partial(self) -> float | None: ...
    @property
    def gold(self) -> list[str] | list[bool]: ...
    @property
    def output(self) -> str | None: ...


def asked(record: Counted) -> bool:
    """Whether ``record`` holds an answer that counts (see the module docstring): graded, or unreadable
    (wrong, also in records written before an unreadable answer was graded)."""
    return record.parse_status == "unparsed" or (record.parse_status in ASKED_STATUSES and record.correct is not None)


def units(record: Counted, rule: JudgmentRule = DEFAULT_JUDGMENT_RULE) -> Units | None:
    """The units ``record`` counts under ``rule``; ``None`` when the question was not asked."""
    if not asked(record):
        return None
    if record.type != "judgment" or rule == "per-item":
        return Units(int(bool(record.correct)), 1)
    gold = [bool(g) for g in record.gold]
    if rule == "ck12-release":
        return Units(*release_judgment(gold, record.output or ""))
    share = record.partial if record.partial is not None else float(bool(record.correct))
    return Units(round(min(max(share, 0.0), 1.0) * len(gold)), len(gold))
