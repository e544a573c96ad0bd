"""Score files: append-only JSONL of typed records, with a header that a resumed job must match.

``scores.jsonl`` holds one record per chain; ``scores.json`` next to it says how
they were made (metrics, models, thresholds). Resuming checks the header, drops
a last line torn by a kill, and skips the ids already scored, so a killed job
loses nothing and writes no duplicates.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from kg.errors import InputError, OtherRunError, Problem
from reasoning_metrics.combine.verdict import CombinedVerdict
from reasoning_metrics.metric_table import Metric, find_metric
from reasoning_metrics.permetric import Assigned, base_roles, job_calibration, plans
from reasoning_metrics.records import ChainScores
from reasoning_metrics.slots import ModelSlots
from reasoning_metrics.step_detail import StepThresholds
from reasoning_metrics.verify.flags import SolutionAssessment
from runners.appended import iter_appended, open_appended
from runners.files import atomic_write, naming, open_own, read_own

SCORES_FILE = "scores.jsonl"
"""A run's score file, in the run folder (``score -o`` may put it elsewhere)."""


def judge_log_path(out: Path, judge: str, asked: str) -> Path:
    """Where a score job into ``out`` keeps the LLM judge's answers as they come (``scores.judge-NAME-HASH.jsonl``
    beside it): one file per judge and way of asking it (``asked``: its sampling), so a job stopped before its
    records were written asks the judge only what it had not answered, and another judge never reads them."""
    slug = re.sub(r"[^\w.-]+", "_", judge).strip("_")[:48]
    digest = hashlib.sha256(f"{judge}\n{asked}".encode()).hexdigest()[:8]
    return out.with_name(f"{out.stem}.judge-{slug}-{digest}.jsonl")


class ScoreRecord(ChainScores):
    """The scores of one question of a run; ``id`` is the question id."""

    question_id: str
    nodes: dict[str, str]
    """Graph node ids by kind (subject, level1, level2, question), copied from the run record."""
    first_suspect: int | None = None
    """Index in ``steps`` of the step the detectors suspect first, -1 when none reaches the flag
    threshold; ``None`` when the detectors did not run (``--no-detectors``, older files) or could not
    check this chain (``assessment.status`` is ``error`` or ``too_long``)."""
    assessment: SolutionAssessment | None = None
    """Everything the detectors found, step by step (``assessment.steps[i]`` is ``steps[i]``): each
    flag's kind, severity and message, the step's suspicion and contradiction, solution-level flags,
    and the detectors that could not run with the reason. ``None`` when the detectors did not run."""
    combined: CombinedVerdict | None = None
    """The learned combiner's step probabilities and first suspect (``score --combiner``); ``None``
    without one, or when the detectors did not check this chain."""


class ScoreConfig(BaseModel):
    """How the records of a score file were made; written once, checked on every resume."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    metrics: list[str]
    models: dict[str, dict[str, str | None]] = Field(default_factory=dict)
    """Role -> language -> model name, for the roles whose own model some metric uses."""
    metric_models: dict[str, dict[str, dict[str, str | None]]] = Field(default_factory=dict)
    """Metric -> role -> language -> the model that produced it: the role's (``models``) or the
    metric's own (``--model-for``). Files written before it existed get it from ``models``."""
    thresholds: dict[str, Any] = Field(default_factory=dict)
    """Language -> the step-flag thresholds the chains of that language were flagged with, the loaded
    encoder they are stored for and whether they were fitted for it
    (:meth:`reasoning_metrics.step_thresholds.EncoderCalibration.header`, the object scoring applies);
    one flat set when they were given (and in files scored before thresholds were per encoder)."""
    calibration: dict[str, Any] = Field(default_factory=dict)
    """Language -> the calibrated scale the records' ``calibrated`` readings are on, and per metric the
    loaded encoder that scored it, its floor (``None``: no calibrated reading) and how well it told right
    from wrong chains on the labelled set (the page greys a column that did not)
    (:meth:`reasoning_metrics.permetric.JobCalibration.header`). Empty in files scored before it."""
    lang: str | None = None
    """The language forced on every chain, if any."""
    source: Literal["stem", "stem+options"] | None = None
    """What a run's chains were scored against: the question's stem alone (the default) or with
    its options (``--source-with-options``); ``None`` for chain files, which bring their own source,
    and for files scored before this was recorded (they held the options)."""
    detectors: list[str] = Field(default_factory=list)
    """The wrong-step detectors whose flags the records carry (``verify.scored.DETECTORS``, named as in ``verify.registry``); empty
    for records without them (``--no-detectors``, ``score-chains``, files scored before they existed).
    Names an older version wrote (``quantities``, ``completeness``) are read as today's, so its files resume."""

    combiner: str | None = None
    """The learned combiner whose verdicts the records carry (``score --combiner``): its name and a hash
    of its weights; ``None`` without one."""

    @model_validator(mode="after")
    def _each_metric_its_models(self) -> ScoreConfig:
        if not self.metric_models:  # an older header: every metric used its roles' models
            self.metric_models = {
                name: {role: self.models.get(role, {}) for role in sorted(metric.models)}
                for name in self.metrics
                if (metric := find_metric(name)) is not None
            }
        return self

    @field_validator("detectors")
    @classmethod
    def _current_names(cls, names: list[str]) -> list[str]:
        # Imported here: the detectors (and sympy) load only when a header is read, not with the store.
        from reasoning_metrics.verify.registry import current_names

        return current_names(names)


def make_config(
    metrics: list[Metric],
    slots: ModelSlots,
    thresholds: StepThresholds | None,
    lang: str | None,
    assigned: Assigned | None = None,
    languages: Iterable[str] = ("en", "zh"),
) -> ScoreConfig:
    """The config of a scoring job: the chosen metrics and the models that produce each
    (``assigned``: the metrics' own, :func:`reasoning_metrics.permetric.assign_models`), and for each of
    ``languages`` (those of the job's chains) the step thresholds and calibrated scale its chains are
    read with: ``thresholds`` as given, or (``None``) what :func:`~reasoning_metrics.permetric.job_calibration`
    finds for the loaded encoders, the same call scoring makes. An encoder not loaded yet is loaded here."""
    assigned = assigned or {}
    by_plan = plans(metrics, slots, assigned)
    applied = {lg: job_calibration(by_plan, lg) for lg in sorted(set(languages))}
    per_metric = {
        m.name: {role: {lg: plan.slots.asked(role, lg) for lg in ("en", "zh")} for role in sorted(m.models)}
        for plan in by_plan
        for m in plan.metrics
    }
    return ScoreConfig(
        metrics=[m.name for m in metrics],
        models={
            role: {lg: slots.asked(role, lg) for lg in ("en", "zh")} for role in sorted(base_roles(metrics, assigned))
        },
        metric_models={m.name: per_metric[m.name] for m in metrics},
        thresholds=(
            asdict(thresholds) if thresholds is not None else {lg: cal.flagging.header() for lg, cal in applied.items()}
        ),
        calibration={lg: cal.header() for lg, cal in applied.items()},
        lang=lang,
    )


HEADER_LIMIT = 64 << 20
"""The most bytes a score header may hold (one written by ``score`` is a few kilobytes)."""


def score_path(run_dir: Path, out: Path | None) -> Path:
    """The score file a job on ``run_dir`` writes: ``out``, or the run's own ``scores.jsonl`` (``score --out``'s
    default), in one place for the job and for what ``score`` says when it is stopped."""
    return Path(out) if out is not None else run_dir / SCORES_FILE


def header_path(out: Path) -> Path:
    """``scores.jsonl`` -> ``scores.json``."""
    return out.with_suffix(".json")


def read_score_header(out: Path) -> ScoreConfig | None:
    """How the score file ``out`` was made (its header, :func:`header_path`); ``None`` when it has none.

    A header that cannot be read, or is not one, is an :class:`InputError` naming the file and the field.
    """
    path = header_path(out)
    if not os.path.lexists(path):
        return None
    try:
        return ScoreConfig.model_validate_json(read_own(path, HEADER_LIMIT))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the score header ({exc})") from None
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "(file)"
        raise InputError(f"{path}, field '{where}': {error['msg']}") from None


def check_score_file(out: Path) -> None:
    """Refuse ``out`` as a score file unless it is one, or is new: a name not ending in ``.jsonl``, a file
    beside it where its header goes that is not a score header (``run.jsonl``'s would be ``run.json``), or
    lines without the header every score file gets with its first record (a bank, a run's records, a chain
    file: their lines have ids too, and would be read as chains already scored). Called before the file is
    locked."""
    if out.suffix != ".jsonl":
        raise InputError(f"{out}: a score file must end in .jsonl")
    try:
        read_score_header(out)
    except InputError as exc:
        raise InputError(
            f"{out}: {header_path(out).name} beside it, where its header goes, is not one ({exc})"
        ) from None
    try:
        size = os.lstat(out).st_size
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"{out}: {exc.strerror}") from None
    if size and not os.path.lexists(header_path(out)):
        raise InputError(
            f"{out}: holds lines but no score header ({header_path(out).name}), so k12eval did not score into it; "
            "choose a new or a score file"
        )


def open_scores(out: Path, config: ScoreConfig) -> set[str]:
    """Prepare ``out`` for appending; the ids it already holds.

    Raises :class:`InputError` when the file was made with another config, or
    holds a bad line other than a torn last one (which is removed). The header
    is written with the first record (:func:`append_scores`), so a job that
    stops before scoring anything leaves nothing behind.
    """
    check_score_file(out)
    header = header_path(out)
    old = read_score_header(out)
    if old is not None and old != config:
        changed = sorted(k for k in ScoreConfig.model_fields if getattr(old, k) != getattr(config, k))
        if "metric_models" in changed and {"metrics", "models"} & set(changed):
            changed.remove("metric_models")  # follows from those: naming them says it shorter
        for follows in ("thresholds", "calibration"):  # follow from the models (and the metrics they score)
            if follows in changed and {"metrics", "models", "metric_models"} & set(changed):
                changed.remove(follows)
        said = (
            f"{header}: {out.name} was scored with other {', '.join(changed)} "
            f"({_describe(old, changed)}); use another output file or delete it to rescore"
        )
        again = next((setting for setting in ("detectors", "combiner") if setting in changed), None)
        if again is None:
            raise OtherRunError(said, out)
        if again == "combiner" and old.combiner is None:
            raise OtherRunError(lambda name: f"{said} (or resume with {name('combiner', 'none')})", out)
        if again == "detectors" and old.detectors:  # the file was flagged: a hint naming the off switch misled
            raise OtherRunError(f"{said} (or resume with the detectors on, as it was)", out)
        raise OtherRunError(lambda name: f"{said} (or resume with {name(again)} as it was)", out)
    return {record["id"] for _, record in read_score_lines(out, repair=True)}


def _describe(config: ScoreConfig, keys: list[str]) -> str:
    return "; ".join(f"{k}: {json.dumps(getattr(config, k), ensure_ascii=False)}" for k in keys)


def read_score_lines(path: Path, repair: bool = False, skip_torn: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, record)`` of a score file; with ``repair``, a torn last line is cut off the file.

    With ``skip_torn`` (a reader while a scorer may be writing), a torn last line is left alone and not read.
    Read as :mod:`runners.appended` reads every append-only file: streaming, a FIFO or device refused by
    name, no line held past the line cap.
    """
    handle = open_appended(path)
    if handle is None:
        return
    good_end = 0
    with handle:
        for line in iter_appended(path, handle):
            if line.torn and (repair or skip_torn):
                break
            if not line.text.strip():
                good_end = line.end
                continue
            try:
                record = json.loads(line.text)
                if not isinstance(record, dict) or not isinstance(record.get("id"), str):
                    raise ValueError("a score record needs an 'id'")
            except ValueError as exc:  # UnicodeDecodeError is one
                problem = Problem(path, line.number, None, f"not a score record ({exc})")
                raise InputError.from_problem(problem) from None
            good_end = line.end
            yield line.number, record
        size = os.fstat(handle.fileno()).st_size
    if repair and good_end < size:
        with os.fdopen(open_own(path, os.O_RDWR, written=True), "r+b") as out:
            out.truncate(good_end)


def append_scores(out: Path, records: Iterable[BaseModel], config: ScoreConfig) -> Iterator[BaseModel]:
    """Append each record as one JSON line as soon as it comes, and pass it on; the header goes first."""
    header = header_path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    handle = os.fdopen(open_own(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, written=True), "a", encoding="utf-8")
    try:
        for record in records:
            if not header.exists():  # whole or absent: a torn header would refuse every resume
                atomic_write(header, config.model_dump_json(indent=2) + "\n")
            with naming(out):
                handle.write(record.model_dump_json() + "\n")
                handle.flush()
            yield record
        with naming(out):
            os.fsync(handle.fileno())
    finally:
        # Closing writes what a failed flush left in the buffer, and fails again: name the file then too
        # (its error replaces the one being raised, which named it).
        with naming(out):
            handle.close()


@dataclass
class Summary:
    """Means and unavailable counts of a set of score records."""

    chains: int = 0
    means: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    """Metric -> number of chains with a value."""
    unavailable: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(metric, reason) -> number of chains."""


def summarize(records: Iterable[ChainScores | dict[str, Any]]) -> Summary:
    """Per-metric means over the chains that have a value, and why the others have none."""
    summary = Summary()
    totals: dict[str, float] = {}
    for record in records:
        data = record.model_dump() if isinstance(record, ChainScores) else record
        summary.chains += 1
        for name, value in data.get("scores", {}).items():
            if value is not None:
                totals[name] = totals.get(name, 0.0) + value
                summary.counts[name] = summary.counts.get(name, 0) + 1
            else:
                summary.counts.setdefault(name, 0)
        for name, reason in data.get("unavailable", {}).items():
            summary.unavailable[(name, reason)] += 1
    summary.means = {name: totals[name] / n for name, n in summary.counts.items() if n}
    return summary
