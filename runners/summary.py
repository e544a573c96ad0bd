"""``RUN_DIR/summary.json``: a run's numbers, written at the end of every session of ``run``.

Also when a session dies (a backend error that escapes, Ctrl-C, SIGTERM): then it describes the
records written so far, ``pending`` counts the questions still to answer, and
``session.status``/``session.reason`` say how and why it stopped.

It is built from *all* the run's records (one per question, the last written), so after a
killed run is resumed it describes the whole run, while ``session`` describes only the
command that wrote it. A session removes it (and ``results.json``) once it has opened the run folder,
before its first record: a session killed by SIGKILL, which writes none, leaves no summary rather than the
last session's numbers for records that are no longer all of the run's (the same command writes it again).
Scripts read it instead of parsing the printed table;
``k12eval run --json`` prints the same object.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from kg.errors import SettingError
from kg.graph import subjects_of
from kg.intervals import wilson_interval
from kg.records import Question
from runners.circular import CIRCULAR, CircularStats, circular_stats
from runners.counting import DEFAULT_JUDGMENT_RULE, JudgmentRule, asked, header_judgment_rule, units
from runners.gaokao_score import GaokaoScores, counts_records, gaokao_scores
from runners.loop_guard import FINISH_LOOP
from runners.records import RunHeader, RunRecord

SessionStatus = Literal["finished", "interrupted", "failed"]
"""How a session of ``run`` ended."""
SUMMARY_FILE = "summary.json"
SUMMARY_VERSION: Literal[1] = 1
STATUSES = ("ok", "unparsed", "failed", "skipped")
SECRET_NAME = re.compile(r"key|secret|password|passwd|auth|(^|_)token$", re.IGNORECASE)
"""Option names whose values are secrets: never recorded (``api_key``, ``token``; not ``max_tokens``)."""
SECRET_VALUE = re.compile(r"\b(sk-[A-Za-z0-9_-]{4,}|Bearer\s+\S+)|(?<=://)[^/\s@]+(?=@)")
"""Secrets by their look, wherever they appear: OpenAI-style keys, bearer tokens, and the user part of a URL
(``-B base_url=https://user:password@host/v1``)."""
REDACTED = "***"


class GroupStats(BaseModel):
    """Accuracy and unparsed rate of a group of questions (a type, a subject, or all).

    Accuracy is over the questions asked (:mod:`runners.counting`): a failed or skipped question counts
    nowhere, and a judgment question counts its statements under the run's judgment rule, so ``report``
    prints the same accuracy for the same run."""

    model_config = ConfigDict(extra="forbid")

    n: int
    """Questions in the group with a record."""
    scored: int
    """Questions asked: graded (``correct`` is not ``None``), an unreadable answer as wrong."""
    correct: int
    """Questions wholly right."""
    accuracy: float | None
    """``units_right / units``; ``None`` when none was asked."""
    accuracy_interval: tuple[float, float] | None = None
    """The 95 % Wilson interval of ``accuracy`` (``[low, high]``); ``None`` when none was asked."""
    units: int = 0
    """What accuracy is over: one per question asked, a judgment question's statements counted under the
    judgment rule instead (``RunResults.judgment_rule``)."""
    units_right: int = 0
    answered: int
    """Questions with an output (status ``ok`` or ``unparsed``)."""
    unparsed: int
    unparsed_rate: float | None
    """``unparsed / answered``; ``None`` when none was answered."""
    failed: int
    """Questions whose request failed (no output)."""


class SessionStats(BaseModel):
    """The command that wrote this summary (a resumed run has one session per command)."""

    model_config = ConfigDict(extra="forbid")

    started_at: str
    """ISO 8601 time this session started."""
    ended_at: str
    wall_s: float
    """Seconds this session took, backend loading included."""
    new: int
    """Questions answered in this session."""
    resumed: int
    """Questions already in the run folder when it started."""
    retries: int
    """Requests the backend sent again in this session (HTTP 429, 5xx, dropped connections)."""
    adapted: dict[str, str] = Field(default_factory=dict)
    """Request parameters the server refused in this session and how its requests went since (the openai
    backend: ``max_tokens`` sent as ``max_completion_tokens``, ``temperature`` left out so the server's
    default applied): ``run.json``'s ``sampling`` is what was asked, this is what the server took."""
    command: list[str]
    """The command line (``sys.argv``), with secrets such as API keys replaced by ``***``."""
    status: SessionStatus = "finished"
    """How this session ended: ``finished``; ``interrupted`` by Ctrl-C or SIGTERM; ``failed`` by an error.

    Either way the records it wrote are kept and the same command resumes the run."""
    reason: str | None = None
    """Why it did not finish, one line: ``KeyboardInterrupt``, ``SIGTERM``, or the error's type and first line."""


class RunResults(BaseModel):
    """What ``summary.json`` holds."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = SUMMARY_VERSION
    model: str
    backend: str
    mode: str
    strategy: str
    variant: str
    questions: int
    """Questions of the run as selected by this session's filters (answered or ``pending``): the bank the
    accuracy's questions were asked from."""
    in_bank: int | None = None
    """Questions of the bank in the run's scope (its ``--select``, ``--subjects`` and ``--types``; not ``--limit``
    or shards): the "n in bank" of "n asked of n in bank", as ``report`` counts it. ``None`` for runs made before
    ``run.json`` recorded it."""
    judgment_rule: JudgmentRule = DEFAULT_JUDGMENT_RULE
    """How a judgment question counts in ``accuracy`` (the run's protocol, :mod:`runners.counting`)."""
    invalid: int = 0
    """Bank records ``--skip-invalid`` left out, so in no count here (a file left out whole counts its records)."""
    invalid_records: list[str] = Field(default_factory=list)
    """Each of them named (file, line, record, field, what is wrong), as ``run.json``'s ``data.skipped``."""
    invalid_unread: int = 0
    """Bank files ``--skip-invalid`` left out whole whose records could not be counted (not in ``invalid``)."""
    pending: int = 0
    """Selected questions with no record yet: more than 0 only when ``session.status`` is not ``finished``."""
    status: dict[str, int]
    """Questions by parse status: ok, unparsed, failed, skipped (every key present)."""
    failures: int
    """Questions whose request failed (``status['failed']``)."""
    loops: int = 0
    """Answers the loop guard stopped because they repeated themselves (``finish_reason`` ``loop``,
    :mod:`runners.loop_guard`); CK12's error types count them as gibberish."""
    finish_reasons: dict[str, int] = Field(default_factory=dict)
    """Generated answers by why their generation ended: ``stop``, ``length`` (the token budget), ``loop``."""
    all: GroupStats
    by_type: dict[str, GroupStats]
    by_subject: dict[str, GroupStats]
    """Per subject; a question in two subjects (a Xiezhi question labelled in two 门类) counts in each."""
    prompt_tokens: int
    """Sum over the run's records (those that report them)."""
    completion_tokens: int
    run_started_at: str
    """When the run was first started (the header's ``started_at``)."""
    template_hash: str
    """The header's hash of the prompt templates and exemplars."""
    chat_template_hash: str | None = None
    """Hash of the model's chat template as this session's backend loaded it (transformers, vLLM);
    ``None`` when the backend cannot know it (an HTTP server's, a replay) or the model has none."""
    packages: dict[str, str] = Field(default_factory=dict)
    """Versions of k12eval and the model libraries (the header's)."""
    circular: CircularStats | None = None
    """For a ``circular`` run (OpenCompass's CircularEval), its figures beside the plain ones: accuracy in the
    original order, over every rotation, and with every rotation right (:mod:`runners.circular`)."""
    gaokao: GaokaoScores | None = None
    """For a run with GAOKAO-Bench questions, the release's scoring rate by its own extraction and by k12eval's
    (:mod:`runners.gaokao_score`)."""
    unit: Literal["questions", "records"] = "questions"
    """What ``questions``, ``in_bank`` and the groups' counts count: ``records`` when every question is a
    GAOKAO-Bench record, which can hold several questions (an English cloze 20; ``gaokao`` counts those)."""
    session: SessionStats


def group_stats(records: Sequence[RunRecord], rule: JudgmentRule = DEFAULT_JUDGMENT_RULE) -> GroupStats:
    """The :class:`GroupStats` of ``records``, judgment questions counted under ``rule``."""
    scored = [r for r in records if asked(r)]
    answered = [r for r in records if r.parse_status in ("ok", "unparsed")]
    counted = [u for r in scored if (u := units(r, rule)) is not None]
    total, right = sum(u.counted for u in counted), sum(u.right for u in counted)
    unparsed = sum(r.parse_status == "unparsed" for r in answered)
    return GroupStats(
        n=len(records),
        scored=len(scored),
        correct=sum(bool(r.correct) for r in scored),
        accuracy=right / total if total else None,
        accuracy_interval=wilson_interval(right, total) if total else None,
        units=total,
        units_right=right,
        answered=len(answered),
        unparsed=unparsed,
        unparsed_rate=unparsed / len(answered) if answered else None,
        failed=sum(r.parse_status == "failed" for r in records),
    )


def _by(records: Iterable[RunRecord], key: str, rule: JudgmentRule) -> dict[str, GroupStats]:
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for record in records:
        groups[getattr(record, key)].append(record)
    return {name: group_stats(group, rule) for name, group in sorted(groups.items())}


def _by_subject(
    records: Iterable[RunRecord], questions: Mapping[str, Question], rule: JudgmentRule
) -> dict[str, GroupStats]:
    """Per subject, as :func:`_by`, a question counted in every subject it sits in (:func:`kg.graph.place_names`:
    a Xiezhi question labelled in two 门类 counts in both, as the report's nodes do); the record's own subject
    where its question is not known."""
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for record in records:
        question = questions.get(record.question_id)
        subjects = subjects_of(question) if question is not None else [record.subject]
        for subject in subjects:
            groups[subject].append(record)
    return {name: group_stats(group, rule) for name, group in sorted(groups.items())}


class LeftOut(NamedTuple):
    """What ``--skip-invalid`` left out of a run's bank (``run.json``'s ``data``)."""

    records: int
    """Records left out (a file left out whole counts its records; a run made before they were counted, one a
    problem)."""
    named: list[str]
    """Each problem named (file, line, record, field, what is wrong)."""
    unread: int
    """Files left out whole whose records could not be counted (not in ``records``)."""


def invalid_left_out(header: RunHeader) -> LeftOut:
    """The bank's records ``--skip-invalid`` left out of the run, counted and named."""
    named = [str(problem) for problem in header.data.get("skipped", [])]
    return LeftOut(int(header.data.get("invalid", len(named))), named, int(header.data.get("invalid_unread", 0)))


def build_results(
    header: RunHeader,
    records: Sequence[RunRecord],
    session: SessionStats,
    pending: int = 0,
    chat_template_hash: str | None = None,
    questions: Mapping[str, Question] | None = None,
) -> RunResults:
    """The summary of a run from its header, its records (one per question) and the questions left;
    ``questions``, the run's questions by id, give the scores benchmarks weigh them by (GAOKAO-Bench)."""
    counts: Counter[str] = Counter(r.parse_status for r in records)
    rule = header_judgment_rule(header)
    finished: Counter[str] = Counter(r.finish_reason for r in records if r.finish_reason is not None)
    gaokao = gaokao_scores(records, questions) if questions else None
    left_out = invalid_left_out(header)
    return RunResults(
        model=header.model,
        backend=header.backend,
        mode=header.mode,
        strategy=header.strategy,
        variant=header.variant,
        questions=len(records) + pending,
        pending=pending,
        invalid=left_out.records,
        invalid_records=left_out.named,
        invalid_unread=left_out.unread,
        status={status: counts.get(status, 0) for status in STATUSES},
        in_bank=header.data.get("in_bank"),
        judgment_rule=rule,
        failures=counts.get("failed", 0),
        loops=finished.get(FINISH_LOOP, 0),
        finish_reasons=dict(sorted(finished.items())),
        all=group_stats(records, rule),
        by_type=_by(records, "type", rule),
        by_subject=_by_subject(records, questions or {}, rule),
        prompt_tokens=sum(r.prompt_tokens or 0 for r in records),
        completion_tokens=sum(r.completion_tokens or 0 for r in records),
        run_started_at=header.started_at,
        template_hash=header.template_hash,
        chat_template_hash=chat_template_hash,
        packages=dict(header.packages),
        circular=circular_stats((r.question_id, r.correct) for r in records) if header.variant == CIRCULAR else None,
        gaokao=gaokao,
        unit="records" if counts_records(gaokao, len(records) + pending) else "questions",
        session=session,
    )


def redact_command(argv: Sequence[str]) -> list[str]:
    """``argv`` with secrets replaced: ``-B api_key=...`` values, ``--api-key X``, ``sk-...`` and bearer tokens."""
    redacted: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            redacted.append(REDACTED)
            hide_next = False
            continue
        parts = arg.split("=")
        for i, part in enumerate(parts[:-1]):
            if SECRET_NAME.search(part.lstrip("-")):  # ``api_key=...``, ``--backend-option=api_key=...``
                arg = "=".join([*parts[: i + 1], REDACTED])
                break
        else:
            if arg.startswith("--") and SECRET_NAME.search(arg):
                hide_next = True  # ``--api-key VALUE``: the value is the next word
        redacted.append(SECRET_VALUE.sub(REDACTED, arg))
    return redacted


@dataclass(frozen=True)
class FailureLimit:
    """How many failed questions a run may hold and still succeed (``--max-failures N`` or ``P%``)."""

    count: int | None = 0
    """At most this many; ``None`` when a share is given instead."""
    share: float | None = None
    """At most this share of the run's questions (0 to 1)."""

    @classmethod
    def parse(cls, text: str) -> FailureLimit:
        """``"3"`` or ``"5%"``; anything else is an :class:`InputError` naming the option."""
        value = text.strip()
        try:
            if value.endswith("%"):
                share = float(value[:-1]) / 100
                if 0 <= share <= 1:
                    return cls(count=None, share=share)
            elif int(value) >= 0:
                return cls(count=int(value))
        except ValueError:
            pass
        raise SettingError("max_failures", text, "expected a count (e.g. 3) or a percentage from 0% to 100% (e.g. 5%)")

    def allows(self, failed: int, total: int) -> bool:
        """Whether ``failed`` failures out of ``total`` questions are within the limit."""
        if self.share is not None:
            return failed <= self.share * total + 1e-9
        return failed <= (self.count or 0)

    def __str__(self) -> str:
        return f"{self.share * 100:g}%" if self.share is not None else str(self.count)
