"""Hand-labelled first wrong steps of GPT-4-0314's answers to GAOKAO-Bench questions (``gaokao-labels`` format).

The second Chinese labelled set: another model (GPT-4-0314, not the small model the combiner was fitted on) and
another school stage (高考, where the first set is 初中), the check #36 asks for. The answers are the release's own:
OpenLMLab/GAOKAO-Bench (Apache-2.0) keeps GPT-4-0314's zero-shot-CoT answers to its objective questions in
``Results/gpt_4_0314_obj`` beside ``Data/``. The repository keeps only what was made here, the labels, keyed by
question id with the SHA-256 of the output they were made on; the question, the teacher's analysis and the output
are joined from the release at read time (``$K12EVAL_GAOKAO_DATA``, the release's ``Data/`` folder, or
``$K12EVAL_SHARED_DATA/gaokao/Data``). The steps are the output split by
:func:`reasoning_metrics.split.split_steps`, as ``k12eval score`` splits it; a file whose output or step count
no longer matches is refused, naming the record, rather than read with labels on the wrong steps. One line per
solution::

    {"id": "gaokao/2010-2022_Math_I_MCQs/102/gpt-4-0314", "question_id": "gaokao/2010-2022_Math_I_MCQs/102",
     "model": "gpt-4-0314", "results": "Results/gpt_4_0314_obj", "output_sha256": "...", "steps": 10,
     "extracted": null, "graded_correct": false, "first_error": 1, "kind": "false_fact", "note": "..."}

An answer made here, not the release's (a model run on the release's questions), is kept with its text as
in ``ck12-labels``: ``"output"`` and ``"steps"`` (the list), no ``"results"``; only the question is joined.
``first_error``, ``kind``, ``answered`` and ``note`` as in :mod:`reasoning_metrics.metaeval.ck12_labels`.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import InputError
from reasoning_metrics.metaeval.ck12_labels import read_joined, string_field

if TYPE_CHECKING:
    from kg.records import Question
    from reasoning_metrics.metaeval.solution import LabelledSolution

GAOKAO_ENV = "K12EVAL_GAOKAO_DATA"


def gaokao_data() -> Path:
    """The release's ``Data/`` folder: ``$K12EVAL_GAOKAO_DATA``, ``$K12EVAL_SHARED_DATA/gaokao/Data``, or
    ``../shared/data/gaokao/Data``."""
    if os.environ.get(GAOKAO_ENV):
        return Path(os.environ[GAOKAO_ENV])
    shared = Path(os.environ.get("K12EVAL_SHARED_DATA") or Path.cwd().parent / "shared" / "data")
    return shared / "gaokao" / "Data"


@cache
def gaokao_questions(data: Path) -> dict[str, Question]:
    """Every objective question of the release's ``Data/`` folder by id (read once per process)."""
    from kg.importers import load_questions

    return {q.id: q for q in load_questions(data, "gaokao").questions}


@cache
def gaokao_outputs(results: Path) -> dict[str, str]:
    """The model's output to each question of the release's result folder ``results``, by question id."""
    from runners.backends.gaokao_results import read_results

    return {f"gaokao/{s.subject}/{s.position}": s.texts[0] for s in read_results(results) if s.texts}


def output_hash(output: str) -> str:
    return hashlib.sha256(output.encode("utf-8")).hexdigest()


def read_gaokao_labels(path: Path, data: Path | None = None) -> list[tuple[str, LabelledSolution]]:
    """Each solution of a labelled file with where it was read, its question (and the release's answer) joined
    from the release."""
    data = data or gaokao_data()
    if not data.is_dir():
        raise InputError(
            f"{path}: the gaokao-labels format joins questions and answers from the GAOKAO-Bench release, whose "
            f"Data/ folder is not at {data}; set {GAOKAO_ENV} to it (a clone of OpenLMLab/GAOKAO-Bench)"
        )

    def steps_of(where: str, record: dict[str, Any], question_id: str) -> Any:
        return record.get("steps") if "results" not in record else _release_steps(where, record, data, question_id)

    return read_joined(path, gaokao_questions(data.resolve()), "question_id", f"the release at {data}", steps_of)


def _release_steps(where: str, record: dict[str, Any], data: Path, question_id: str) -> list[str]:
    """The steps of the release's answer a record names (``results``), checked against its hash and step count."""
    from reasoning_metrics.split import split_steps

    release = data.parent.resolve()
    folder = (release / string_field(where, record, "results")).resolve()
    if not folder.is_relative_to(release):
        raise InputError(f"{where}, field 'results': {folder} is outside the release at {release}")
    if not folder.is_dir():
        raise InputError(f"{where}, field 'results': no result folder {folder} in the release")
    output = gaokao_outputs(folder).get(question_id)
    if output is None:
        raise InputError(f"{where}, field 'question_id': {question_id!r} has no answer in {folder}")
    labelled_hash = string_field(where, record, "output_sha256")
    if output_hash(output) != labelled_hash:
        raise InputError(
            f"{where}, field 'output_sha256': the answer in {folder} is not the one labelled (the release changed)"
        )
    steps = split_steps(output)
    if len(steps) != record.get("steps"):
        raise InputError(
            f"{where}, field 'steps': labelled on {record.get('steps')} steps, the output splits into "
            f"{len(steps)} now (reasoning_metrics.split changed): the labels would sit on other steps"
        )
    return steps
