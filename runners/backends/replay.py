"""The replay backend: answers from recorded outputs, keyed by question id.

It reads either a JSONL of input records each carrying a ``response`` (the CK12
release's result files: a CK12 record plus ``"response"``) or a previous run's
``records.jsonl`` (``question_id`` + ``output``/``outputs``/``error``). A run folder
may be given for its ``records.jsonl``. A later line for the same id replaces an
earlier one. Ids with nothing recorded come back with ``error`` set.

It also reads other harnesses' outputs (``format=lm-eval``, ``format=opencompass`` or ``format=gaokao``,
GAOKAO-Bench's own result files; detected when not given): see :mod:`runners.backends.harness_logs` and
:mod:`runners.backends.gaokao_results` for the formats and :mod:`runners.backends.harness_match` for how
their records find the bank's questions.
Their generations replay through ``generate``; their per-choice log-likelihoods
through ``loglikelihood`` (the ``rank-options`` and ``next-token`` strategies).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.errors import InputError, Problem
from kg.jsonl import describe, jsonl_objects
from kg.records import clean_id
from runners.backends._shared import estimate_tokens
from runners.backends.base import (
    Backend,
    GenerationRequest,
    GenerationResult,
    LoglikelihoodRequest,
    LoglikelihoodResult,
)
from runners.backends.gaokao_results import FORMAT as GAOKAO
from runners.backends.gaokao_results import looks_like_results, read_results
from runners.backends.harness_files import opencompass_model_folder
from runners.backends.harness_logs import FORMATS, Sample, detect, read_samples
from runners.backends.harness_match import Match, Miss, SampleIndex
from runners.backends.harness_texts import kept_prompt
from runners.records import RECORDS_FILE

RECORDS = "records"
REPLAY_FORMATS = (RECORDS, *FORMATS, GAOKAO)
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Recorded:
    """What was recorded for one id."""

    texts: list[str]
    error: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None


class ReplayBackend(Backend):
    """Recorded outputs played back as if a model produced them."""

    name = "replay"
    server_side_model = True
    """The model is a recorded file played back, never a model to load here."""

    def __init__(
        self,
        model: str,
        *,
        path: str | None = None,
        format: str | None = None,  # shadows the builtin: the user writes -B format=lm-eval
        chat: bool = True,
        tokenizer: str | None = None,
    ):
        """``model`` is the recorded file (or run folder) unless ``path`` names it; then ``model`` is a label.

        ``format`` is ``records`` (k12eval's own and CK12 result files), ``lm-eval``, ``opencompass`` or
        ``gaokao`` (GAOKAO-Bench's ``Results/<model>_obj/``); detected from the file (or folder) when not given.
        ``tokenizer`` (hub id or folder) makes ``count_tokens`` exact; otherwise it estimates.
        """
        source = Path(path or model)
        if format not in (None, *REPLAY_FORMATS):
            raise InputError(f"unknown replay format {format!r}; choose one of {', '.join(REPLAY_FORMATS)}")
        if format in (None, "opencompass") and source.is_dir() and not (source / RECORDS_FILE).is_file():
            source = opencompass_model_folder(source, model) or source
        if format is None and source.exists() and not (source / RECORDS_FILE).is_file():
            format = detect(source) or (GAOKAO if looks_like_results(source) else None)
        self.format = format or RECORDS
        if self.format == RECORDS and source.is_dir():
            source = source / RECORDS_FILE
        self.model = model
        self.path = source
        self.is_chat = chat
        self.samples: SampleIndex | None = None
        self.harness: dict[str, Any] | None = None
        """For another harness's files, what the run header records of them (:attr:`RunHeader.harness`)."""
        self.recorded: dict[str, Recorded] = {}
        if self.format == RECORDS:
            self.recorded = load_recorded(source)
        elif not source.exists():
            raise InputError(f"{source}: no such file or folder of {self.format} outputs")
        else:
            samples = read_results(source) if self.format == GAOKAO else read_samples(source, self.format)
            self.samples = SampleIndex(samples)
            self.harness = harness_header(self.format, source, samples)
            fields = Counter(s.question_field if s.question else "none" for s in samples)
            with_prompt = sum(s.prompt is not None for s in samples)
            log.info(
                "%s: %d %s record(s); question text from %s; %d with the harness's prompt",
                source,
                len(samples),
                self.format,
                ", ".join(f"{field} ({n})" for field, n in fields.most_common()),
                with_prompt,
            )
        self._tokenizer_name = tokenizer
        self._tokenizer: Any = None

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """The recorded answer for each request id; unknown ids get ``error``."""
        if self.samples is not None:
            return [self._generated(self.samples, r) for r in requests]
        results = []
        for request in requests:
            found = self.recorded.get(request.id)
            if found is None:
                results.append(
                    GenerationResult(request.id, error=f"no recorded output for id {request.id!r} in {self.path}")
                )
                continue
            results.append(
                GenerationResult(
                    request.id,
                    texts=list(found.texts),
                    finish_reasons=["replay"] * len(found.texts),
                    prompt_tokens=found.prompt_tokens,
                    completion_tokens=found.completion_tokens,
                    latency_s=found.latency_s,
                    error=found.error,
                )
            )
        return results

    def recorded_kinds(self) -> frozenset[str]:
        """What another harness's records hold: ``text`` (generated answers), ``scores`` (choice scores of a
        loglikelihood or PPL task); empty for k12eval's own records, which a run checks record by record."""
        samples = self.samples.samples if self.samples is not None else []
        return frozenset(kind for s in samples for kind, held in (("text", s.texts), ("scores", s.scores)) if held)

    def remember(self, given: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Take note of the harness records an earlier session gave (question id, its record's ``harness``),
        so that a resumed run gives none of them to another question."""
        if self.samples is not None:
            self.samples.remember(given)

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        """Recorded choice scores (lm-eval, OpenCompass PPL); recorded text has none: those get ``error``."""
        if self.samples is not None:
            return [self._scored(self.samples, r) for r in requests]
        return [
            LoglikelihoodResult(request.id, error="the replay backend has no log-probabilities") for request in requests
        ]

    def _missing(self, question_id: str, miss: Miss) -> str:
        return f"{miss.kind} for id {question_id!r} in {self.path} ({self.format}): {miss.detail}"

    def _recorded(
        self, samples: SampleIndex, request: GenerationRequest | LoglikelihoodRequest
    ) -> tuple[Sample | None, dict[str, Any] | None, str | None]:
        """The sample recorded for ``request`` and its provenance, or (no sample) the error the request gets:
        none found, or the harness's own fault on it."""
        found = samples.find(request.id, request.prompt, request.texts)
        if isinstance(found, Miss):
            return None, None, self._missing(request.id, found)
        harness = provenance(found)
        if found.sample.fault is not None:
            return None, harness, found.sample.fault
        return found.sample, harness, None

    def _generated(self, samples: SampleIndex, request: GenerationRequest) -> GenerationResult:
        sample, harness, error = self._recorded(samples, request)
        if sample is None:
            return GenerationResult(request.id, error=error, harness=harness)
        if not sample.texts:
            return GenerationResult(
                request.id,
                error=f"{sample.place()} has choice scores, no text: use the rank-options strategy",
                harness=harness,
            )
        texts = list(sample.texts)
        return GenerationResult(request.id, texts=texts, finish_reasons=["replay"] * len(texts), harness=harness)

    def _scored(self, samples: SampleIndex, request: LoglikelihoodRequest) -> LoglikelihoodResult:
        sample, harness, error = self._recorded(samples, request)
        if sample is None:
            return LoglikelihoodResult(request.id, error=error, harness=harness)
        if sample.scores is None:
            return LoglikelihoodResult(
                request.id,
                error=f"{sample.place()} has text, no choice scores: use the generate strategy",
                harness=harness,
            )
        if len(sample.scores) != len(request.continuations):  # this record only: its request fails, named
            problem = sample.problem(
                "resps" if self.format == "lm-eval" else "label",
                f"{len(sample.scores)} choice scores, but bank question {request.id!r} has "
                f"{len(request.continuations)} options",
            )
            return LoglikelihoodResult(request.id, error=str(problem), harness=harness)
        return LoglikelihoodResult(request.id, logprobs=list(sample.scores), harness=harness)

    def count_tokens(self, text: str) -> int:
        """Exact with ``tokenizer``; otherwise an estimate that errs long."""
        if self._tokenizer_name is None:
            return estimate_tokens(text)
        if self._tokenizer is None:
            from transformers import AutoTokenizer

            self._tokenizer = AutoTokenizer.from_pretrained(self._tokenizer_name)
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])


def harness_header(fmt: str, source: Path, samples: Sequence[Sample]) -> dict[str, Any]:
    """The run header's account of another harness's files: format, path, files, generation settings, and the
    metrics and filters of the verdicts its records carry."""
    settings: list[Any] = []
    for sample in samples:
        if sample.generation is not None and sample.generation not in settings and len(settings) < 5:
            settings.append(sample.generation)
    files = sorted({str(sample.file) for sample in samples})
    header: dict[str, Any] = {"format": fmt, "path": str(source.resolve()), "files": len(files), "generation": settings}
    metrics: dict[str, None] = {}
    filters: dict[str, None] = {}
    for sample in samples:
        for verdict in sample.verdicts:
            filters.setdefault(verdict["filter"])
            metrics.update(dict.fromkeys(verdict["metrics"]))
    if metrics:  # the harness's own verdicts, kept on each record (--grader harness counts them)
        header["verdicts"] = {"metrics": list(metrics), "filters": list(filters)}
    return header


def provenance(match: Match) -> dict[str, Any]:
    """What a record keeps of the harness's sample it replays: where it is, how it matched, what was asked, and
    the harness's own verdicts and gold (:mod:`runners.backends.harness_verdicts`)."""
    sample = match.sample
    kept: dict[str, Any] = {"file": str(sample.file)}
    kept["line" if sample.line is not None else "record"] = sample.line if sample.line is not None else sample.record
    kept["matched_by"] = match.by
    if sample.prompt is not None:
        kept["prompt"] = kept_prompt(sample.prompt)
    if sample.generation is not None:
        kept["generation"] = sample.generation
    if sample.verdicts:
        kept["verdicts"] = [dict(verdict) for verdict in sample.verdicts]
    if sample.target is not None:
        kept["target"] = sample.target
    if sample.recorded is not None:
        kept["recorded_answer"] = list(sample.recorded)
    return kept


def load_recorded(path: Path) -> dict[str, Recorded]:
    """Read recorded outputs by id; a malformed line raises :class:`InputError` naming it."""
    if not path.is_file():
        raise InputError(f"{path}: no such file of recorded outputs")
    recorded: dict[str, Recorded] = {}
    # model output: kept, made text; CK12's eval_results files may write a record as a one-item list
    for line, item in jsonl_objects(path, replace_surrogates=True, one_record_lists=True):
        key, found = _parse(item, path, line)
        recorded[key] = found
    return recorded


def _parse(item: dict[str, Any], path: Path, line: int) -> tuple[str, Recorded]:
    def problem(field: str | None, message: str) -> InputError:
        return InputError.from_problem(Problem(path, line, field, message, str(item.get("id", "")) or None))

    if "question_id" in item:  # a run's RunRecord
        key, texts = item["question_id"], item.get("outputs") or item.get("output")
        field = "output"
        if texts is None and not item.get("error"):
            raise problem(field, "neither output nor error recorded")
    elif "id" in item:
        key, texts, field = item["id"], item.get("response"), "response"
        if "response" not in item:
            raise problem(field, "missing; expected the model's answer text")
    else:
        raise problem("id", "missing; expected 'id' (with 'response') or 'question_id' (a run record)")
    if not isinstance(key, str | int) or isinstance(key, bool):
        raise problem("question_id" if field == "output" else "id", f"expected text, got {describe(key)}")
    if texts is None:
        texts = []
    elif isinstance(texts, str):
        texts = [texts]
    elif not (isinstance(texts, list) and all(isinstance(t, str) for t in texts)):
        raise problem(field, f"expected text or a list of texts, got {describe(texts)}")
    error = None if texts else item.get("error") or f"{field} is null"
    return clean_id(str(key)), Recorded(
        texts=texts,
        error=str(error) if error else None,
        prompt_tokens=_int_or_none(item.get("prompt_tokens")),
        completion_tokens=_int_or_none(item.get("completion_tokens")),
        latency_s=item.get("latency_s") if isinstance(item.get("latency_s"), int | float) else None,
    )


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
