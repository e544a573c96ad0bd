"""Other harnesses' per-question outputs, read as replay input: lm-evaluation-harness and OpenCompass.

- **lm-eval** ``--log_samples``: ``samples_<task>_<date>.jsonl`` (or ``.jsonl.gz``, as users
  compress it), one JSON object a line with
  ``doc_id`` (the question's position in the task's split), ``doc`` (the task's document:
  ``Question,A..D,Answer`` for ``cmmlu_<subject>``, ``id,question,A..D,answer`` for
  ``ceval-valid_<subject>``), ``resps`` (``[[text, ...]]`` for ``generate_until``;
  ``[[[logprob, is_greedy]], ...]``, one per choice, for ``loglikelihood``), and in
  recent versions ``task_name``. A line per filter repeats a ``doc_id``: the first line's answer is kept,
  and every line's verdict (``filter``, ``filtered_resps``, the metrics' values: :mod:`runners.backends.harness_verdicts`).
- **OpenCompass** ``predictions/<model>/<dataset>.json``: an object keyed ``"0"``, ``"1"``, ...
  (the position in the dataset's split), each with ``origin_prompt``, ``prediction``
  and ``gold``; the PPL inferencer adds ``"label: A": {"PPL": ...}`` per option
  (OpenCompass's ``PPL`` is the mean token loss: lower is better, so the score is ``-PPL``)
  or ``"label: A": {"Loglikelihood": ...}``. Dataset ``cmmlu-<subject>`` is CMMLU's test
  split, ``ceval-<subject>`` C-Eval's val split, ``ceval-test-<subject>`` its test split.
  A large dataset comes in shards ``<dataset>_0.json``, ``<dataset>_1.json``, ..., each keyed
  from ``"0"``: their positions run on from shard to shard. While it runs, OpenCompass appends
  the same records to ``tmp_<dataset>.jsonl``, one ``{"idx": "0", ...}`` a line (a resumed run
  may repeat an ``idx``: the last counts, as when OpenCompass reads it back); it deletes that
  file once ``<dataset>.json`` is written, so an interrupted run leaves only the JSON Lines. The
  finished ``.json`` is read when both are there.

Each record becomes a :class:`Sample` carrying where it came from, so a mismatch with the
bank names the file, the line or record and the field.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kg.errors import InputError, Problem
from kg.jsonl import describe, not_regular, printable
from runners.backends.harness_files import (
    LM_EVAL_DATE,
    OPENCOMPASS_TMP,
    PATTERNS,
    base_name,
    first_record,
    is_jsonl,
    jsonl_records,
    output_files,
)
from runners.backends.harness_texts import lm_eval_request, opencompass_prompt, question_of
from runners.backends.harness_verdicts import lm_eval_target, lm_eval_verdict, results_filters, target_text

FORMATS = ("lm-eval", "opencompass")
_LABEL = "label: "
_SHARD = re.compile(r"^(?P<base>.+)_(?P<index>[0-9]+)$")
_POSITION = re.compile(r"[0-9]{1,15}")
"""A position as OpenCompass writes it: ASCII digits (``str.isdigit`` also takes ``²`` and ``٣``, which
``int`` refuses or reads as another number), short enough to be a row of a dataset."""


@dataclass(frozen=True)
class Sample:
    """One recorded answer of another harness, with the coordinates used to match it to a bank question."""

    file: Path
    line: int | None
    """Line of an lm-eval record; ``None`` for OpenCompass (``record`` names it)."""
    record: str
    """The harness's own id: lm-eval's ``doc_id``, OpenCompass's key."""
    source: str | None
    """``ceval`` / ``cmmlu`` when the task or dataset name says so."""
    split: str | None
    subject: str | None
    position: int
    question: str | None = None
    """The document's question text (lm-eval), to check the match against the prompt."""
    question_field: str = "doc"
    """Where ``question`` came from (``doc.problem``); without one, why there is none."""
    choices: tuple[str, ...] = ()
    """The document's option texts (lm-eval's ``A``..``D``), checked with the question."""
    texts: tuple[str, ...] = ()
    scores: tuple[float, ...] | None = None
    """One score per choice (log-likelihood-like: higher is more probable), in choice order."""
    prompt: str | None = None
    """The prompt the harness rendered and sent, as text (lm-eval's ``arguments``, OpenCompass's ``origin_prompt``)."""
    generation: dict[str, Any] | None = None
    """The harness's generation settings for this record (lm-eval's ``arg_1``: ``until``, ``max_gen_toks``...)."""
    fault: str | None = None
    """Why the recorded answer cannot be used (a score that is not a finite number): its request fails with it."""
    verdicts: tuple[dict[str, Any], ...] = ()
    """The harness's own verdicts on the answer, one per filter (:mod:`runners.backends.harness_verdicts`)."""
    target: str | None = None
    """The harness's gold answer as text (lm-eval's ``target``)."""
    recorded: tuple[str, ...] | None = None
    """The answer the harness itself read from the text (GAOKAO-Bench's ``model_answer``), kept for comparison."""
    edited_at_least: float | None = None
    """How alike (0 to 1) its question text and the bank's must be for the record at a question's position to be
    that question, edited since (:mod:`runners.backends.gaokao_results`); ``None``: the texts must agree."""

    def place(self) -> str:
        """``FILE, line 3`` or ``FILE, record 7``."""
        return f"{self.file}, {f'line {self.line}' if self.line is not None else f'record {self.record}'}"

    def problem(self, field: str | None, message: str) -> InputError:
        """An error naming this record's file, line or record, and ``field``."""
        return InputError.from_problem(Problem(self.file, self.line, field, message, record=self.record))


def task_coordinates(name: str) -> tuple[str | None, str | None, str | None]:
    """``(source, split, subject)`` of an lm-eval task or OpenCompass dataset name; unknown parts are ``None``."""
    for prefix, source, split in (
        ("ceval-valid_", "ceval", "val"),
        ("cmmlu_", "cmmlu", "test"),
        ("ceval-test-", "ceval", "test"),
        ("ceval-", "ceval", "val"),
        ("cmmlu-", "cmmlu", "test"),
    ):
        if name.startswith(prefix) and len(name) > len(prefix):
            return source, split, name[len(prefix) :]
    return None, None, None


def detect(path: Path) -> str | None:
    """``lm-eval`` or ``opencompass`` when ``path`` (a file or a folder of them) looks like one, else ``None``."""
    files = [path] if path.is_file() else output_files(path, "lm-eval") or output_files(path, "opencompass")
    for file in files[:1]:
        if is_jsonl(file):
            item = first_record(file) or {}
            if "doc_id" in item and "resps" in item:
                return "lm-eval"
            return "opencompass" if "idx" in item and _opencompass_like(item) else None
        if file.suffix == ".json":
            return "opencompass" if _looks_like_opencompass(file) else None
    return None


def _opencompass_like(item: dict[str, Any]) -> bool:
    return "prediction" in item or any(key.startswith(_LABEL) for key in item)


def _looks_like_opencompass(file: Path) -> bool:
    try:
        with file.open(encoding="utf-8", errors="replace") as handle:  # the head only: the file may be huge
            head = handle.read(4096)
    except OSError:
        return False
    return head.lstrip().startswith("{") and ('"prediction"' in head or f'"{_LABEL}' in head)


def read_samples(path: Path, fmt: str) -> list[Sample]:
    """Every sample of ``path`` (one file, or a folder of the format's files); errors name their place."""
    if fmt not in FORMATS:
        raise InputError(f"unknown replay format {fmt!r}; choose one of records, {', '.join(FORMATS)}")
    files = output_files(path, fmt)
    if not files:
        raise InputError(f"{path}: no {fmt} output files here (expected {' or '.join(PATTERNS[fmt])})")
    if fmt == "lm-eval":
        _one_file_per_task(files)
        return [sample for file in files for sample in _lm_eval(file)]
    samples: list[Sample] = []
    for name, shards in _opencompass_datasets(files).items():
        offset = 0  # OpenCompass numbers each shard from "0"; its evaluator concatenates them in order
        for number, shard in enumerate(shards):
            if number < len(shards) - 1 and shard.name.startswith(OPENCOMPASS_TMP):
                raise InputError(
                    f"{shard}: shard {number} of {name} is unfinished (OpenCompass's tmp_ file), so the positions "
                    "of the shards after it are unknown; finish that shard, or pass the shards before it"
                )
            read = list(_opencompass(shard, name, offset))
            samples.extend(read)
            offset += len(read)
    return samples


def task_of(file: Path) -> str:
    """The task a samples file holds: ``samples_winogrande_2024-05-01T10-00-00.jsonl`` -> ``winogrande``."""
    return LM_EVAL_DATE.sub("", base_name(file).removeprefix("samples_"))


def _one_file_per_task(files: list[Path]) -> None:
    """Refuse two files of one task (two runs' outputs, or one kept plain and gzipped): the user chooses."""
    seen: dict[str, Path] = {}
    for file in files:
        task = task_of(file)
        if task in seen:
            raise InputError(
                f"{file}: a second samples file of task {task!r} (the first is {seen[task]}); "
                "pass one file or a folder with one run's files"
            )
        seen[task] = file


def _opencompass_datasets(files: list[Path]) -> dict[str, list[Path]]:
    """Files by dataset name: ``<abbr>.json``, or the shards ``<abbr>_0.json``, ``<abbr>_1.json``, ... in order.

    A shard given alone brings its siblings, since its positions start after theirs; a shard after
    the first without ``<abbr>_0`` beside it is refused (its positions are unknown). A finished
    ``<abbr>.json`` is taken over the ``tmp_<abbr>.jsonl`` of the same dataset or shard.
    """
    datasets: dict[str, list[Path]] = {}
    for file in files:
        stem = base_name(file).removeprefix(OPENCOMPASS_TMP)
        shard = _SHARD.match(stem)
        base, index = (shard.group("base"), int(shard.group("index"))) if shard else (None, 0)
        if base is not None and (task_coordinates(base)[0] is None or _dataset_file(file.parent, f"{base}_0") is None):
            if index > 0 and task_coordinates(base)[0] is not None:
                raise InputError(
                    f"{file}: shard {index} of {base} without its shard 0 ({base}_0.json) beside it, so the "
                    "positions of its records are unknown; put all the shards of the dataset in one folder"
                )
            base = None
        if base is None:
            if stem not in datasets or datasets[stem][0].name.startswith(OPENCOMPASS_TMP):
                datasets[stem] = [_dataset_file(file.parent, stem) or file]
            continue
        if base not in datasets:
            found: list[Path] = []
            while (next_shard := _dataset_file(file.parent, f"{base}_{len(found)}")) is not None:
                found.append(next_shard)
            datasets[base] = found
    return datasets


def _dataset_file(folder: Path, stem: str) -> Path | None:
    """The finished ``<stem>.json``, else OpenCompass's ``tmp_<stem>.jsonl``, else ``<stem>.jsonl``; or ``None``."""
    for name in (f"{stem}.json", f"{OPENCOMPASS_TMP}{stem}.jsonl", f"{stem}.jsonl"):
        if (folder / name).is_file():
            return folder / name
    return None


def _lm_eval(file: Path) -> Iterator[Sample]:
    """The file's samples, one per ``doc_id`` (its first line), each with the verdicts of all its lines."""
    samples: dict[int, Sample] = {}
    verdicts: dict[int, list[dict[str, Any]]] = {}
    filters = results_filters(file, task_of(file))
    lines_of: Counter[int] = Counter()
    for line, item in jsonl_records(file):
        where = Problem(file, line, None, "", record=str(item.get("doc_id", "")) or None)
        doc_id = item.get("doc_id")
        if not isinstance(doc_id, int) or isinstance(doc_id, bool) or doc_id < 0:
            raise InputError.from_problem(_at(where, "doc_id", f"expected a position (0, 1, ...), got {doc_id!r:.40}"))
        nth = lines_of[doc_id]  # the nth line of a document is its nth filter's
        lines_of[doc_id] += 1
        verdict = lm_eval_verdict(item, filters[nth] if nth < len(filters) else "none")
        if verdict is not None:
            verdicts.setdefault(doc_id, []).append(verdict)
        if doc_id in samples:  # one line per filter: the responses are the same
            continue
        task = item.get("task_name")
        name = task if isinstance(task, str) and task else task_of(file)
        source, split, subject = task_coordinates(name)
        doc = item.get("doc")
        question, field = question_of(doc)
        choices = tuple(doc[k] for k in "ABCD" if isinstance(doc.get(k), str)) if isinstance(doc, dict) else ()
        prompt, generation = lm_eval_request(item)
        texts, scores, fault = _lm_eval_responses(item.get("resps"), where)
        samples[doc_id] = Sample(
            file,
            line,
            str(doc_id),
            source,
            split,
            subject,
            doc_id,
            question,
            field,
            choices,
            texts,
            scores,
            prompt=prompt,
            generation=generation,
            fault=fault,
            target=lm_eval_target(item),
        )
    for doc_id, sample in samples.items():
        yield replace(sample, verdicts=tuple(verdicts.get(doc_id, ())))


def _lm_eval_responses(resps: Any, where: Problem) -> tuple[tuple[str, ...], tuple[float, ...] | None, str | None]:
    """``(texts, scores, fault)`` of lm-eval's ``resps``; ``fault`` names a score that is not a finite number."""
    expected = "[[text]] (generate_until) or [[[logprob, is_greedy]], ...] (loglikelihood)"
    if not (isinstance(resps, list) and resps and all(isinstance(r, list) and r for r in resps)):
        raise InputError.from_problem(_at(where, "resps", f"expected {expected}, got {_json(resps)}"))
    if all(isinstance(t, str) for t in resps[0]) and len(resps) == 1:
        return tuple(resps[0]), None, None
    scores = []
    for choice in resps:
        first = choice[0]
        value = first[0] if isinstance(first, list) and first else first
        if isinstance(value, str):  # lm-eval writes a numpy float it cannot serialize as its text: "-52.0"
            value = _number(value)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise InputError.from_problem(_at(where, "resps", f"expected {expected}, got {_json(resps)}"))
        scores.append(_finite(value))
    if None in scores:
        shown = ", ".join(_json(c[0][0] if isinstance(c[0], list) else c[0]) for c in resps)
        return (), None, _fault(where, "resps", f"log-likelihoods {shown[:80]}: not all finite numbers")
    return (), tuple(s for s in scores if s is not None), None


def _number(text: str) -> float | None:
    """A number written as text (``"-52.0"``, ``"nan"``), or ``None`` when the text is no number."""
    try:
        return float(text.strip()[:100])
    except ValueError:
        return None


def _finite(value: int | float) -> float | None:
    """``value`` as a float, ``None`` when it is NaN, infinite or too large for one (``1e400`` reads as inf)."""
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        return None
    return number if math.isfinite(number) else None


def _fault(where: Problem, field: str, message: str) -> str:
    """A failed request's error naming the record's file, line or record, and field."""
    return str(Problem(where.path, where.line, field, message, record=where.record))


def _json(value: Any) -> str:
    """``value`` as JSON for a message, at most 60 characters (NaN and infinities as JSON5 spells them)."""
    try:
        return json.dumps(value)[:60]
    except (ValueError, RecursionError):  # an integer over Python's 4,300-digit limit
        return describe(value)


def _at(where: Problem, field: str, message: str) -> Problem:
    return Problem(where.path, where.line, field, message, record=where.record)


def _opencompass(file: Path, name: str, offset: int) -> Iterator[Sample]:
    source, split, subject = task_coordinates(name)
    for key, line, item in _opencompass_records(file):
        where = Problem(file, line, None, "", record=_shown(key))
        if not _POSITION.fullmatch(key):
            message = f"expected a position ('0', '1', ...), got {json.dumps(_shown(key))}"
            raise InputError.from_problem(_at(where, "idx" if line else "key", message))
        if not isinstance(item, dict):
            raise InputError.from_problem(_at(where, "record", f"expected an object, got {describe(item)}"))
        texts, scores, fault = _opencompass_answer(item, where)
        position = offset + int(key)
        yield Sample(
            file,
            line,
            key,
            source,
            split,
            subject,
            position,
            None,
            "origin_prompt",
            (),
            texts,
            scores,
            prompt=opencompass_prompt(item),
            fault=fault,
            target=target_text(item.get("gold")),
        )


def _opencompass_records(file: Path) -> list[tuple[str, int | None, Any]]:
    """``(key, line, record)`` of a prediction file: a ``.json`` object's items, or a ``.jsonl``'s lines.

    A key repeated in JSON Lines (a resumed OpenCompass run appends again) keeps its last record,
    at the place of its first.
    """
    if is_jsonl(file):
        records: dict[str, tuple[int | None, Any]] = {}
        for line, item in jsonl_records(file):
            idx = item.get("idx")
            key = str(idx) if isinstance(idx, int | str) and not isinstance(idx, bool) else ""
            if not _POSITION.fullmatch(key):
                shown = json.dumps(_shown(idx)) if isinstance(idx, str) else describe(idx)
                problem = Problem(file, line, "idx", f"expected a position ('0', '1', ...), got {shown}")
                raise InputError.from_problem(problem)
            records[key] = (line, {k: v for k, v in item.items() if k != "idx"})
        return [(key, line, item) for key, (line, item) in records.items()]
    refused = not_regular(file)
    if refused is not None:
        raise InputError.from_problem(refused)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:  # ValueError: a 5,000-digit integer
        raise InputError(f"{file}: not an OpenCompass prediction file (JSON): {str(exc)[:120]}") from None
    if not isinstance(data, dict):
        raise InputError(f"{file}: expected an object keyed by position ('0', '1', ...), got {describe(data)}")
    return [(key, None, item) for key, item in data.items()]


def _shown(key: str) -> str:
    """A key as a message may show it: at most 40 characters, lone surrogates escaped."""
    return printable(key[:40] + ("..." if len(key) > 40 else ""))


def _opencompass_answer(
    item: dict[str, Any], where: Problem
) -> tuple[tuple[str, ...], tuple[float, ...] | None, str | None]:
    """``(texts, scores, fault)`` of a prediction; ``fault`` names a score that is not a finite number."""
    labels = sorted(k for k in item if k.startswith(_LABEL))
    if labels:
        scores = []
        for label in labels:
            entry = item[label]
            value = entry.get("Loglikelihood") if isinstance(entry, dict) else None
            ppl = entry.get("PPL") if isinstance(entry, dict) else None
            if value is None and isinstance(ppl, int | float) and not isinstance(ppl, bool):
                value = -ppl  # OpenCompass's PPL is a loss: lower is more probable
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise InputError.from_problem(_at(where, label, "expected 'PPL' or 'Loglikelihood', a number"))
            score = _finite(value)
            if score is None:
                return (), None, _fault(where, label, f"score {_json(value)}: not a finite number")
            scores.append(score)
        return (), tuple(scores), None
    prediction = item.get("prediction")
    if isinstance(prediction, str):
        return (prediction,), None, None
    if isinstance(prediction, list) and prediction and all(isinstance(p, str) for p in prediction):
        return tuple(prediction), None, None
    raise InputError.from_problem(_at(where, "prediction", f"expected the model's text, got {_json(prediction)}"))
