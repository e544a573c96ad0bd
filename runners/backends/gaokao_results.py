"""GAOKAO-Bench's result files, read as replay input: the model outputs its release keeps beside its data.

The release (OpenLMLab/GAOKAO-Bench, Apache-2.0) keeps GPT-4-0314's answers to its objective questions in
``Results/gpt_4_0314_obj/<model>_<keyword>.json``, one file per data file, as its ``Bench/bench_function.py``
(``choice_test`` and ``export_union_json``) writes them: one JSON object ``{"keyword", "model_name",
"prompt", "example": [...]}`` whose examples are ``{index, year, category, score, question,
standard_answer, analysis, model_answer, model_output}``. ``model_output`` is the model's text,
``model_answer`` the letters the release's extraction read from it, ``prompt`` the file's prefix (the
release sends it as the system message and ``question.strip() + "\\n"`` as the user message).

An example becomes a :class:`~runners.backends.harness_logs.Sample` at the coordinates of the bank question
it answers: source ``gaokao``, subject the file's keyword, position its ``index`` (the importer's id is
``gaokao/<keyword>/<index>``), checked by its question text (:mod:`runners.backends.harness_match`). The
release corrected four questions after the outputs were made (a ``\\cdot`` typo in Math I 1, an option label
in Chemistry 111, a full stop in the English Cloze Test 16 and 23), so a record at its question's position
also confirms it when its text is nearly the same (:data:`EDITED_AT_LEAST`): the record says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kg.errors import InputError, Problem
from kg.jsonl import describe, not_regular, printable
from runners.backends._shared import clean_text
from runners.backends.harness_logs import Sample

FORMAT = "gaokao"
EDITED_AT_LEAST = 0.9
"""Least similarity (``difflib`` ratio of the whitespace-free NFKC texts) at which the record at a question's
position is still that question, edited since: a few characters of a question of a hundred or more. Measured on
the release (6dbb24f): its four edited questions are 97.2-99.9 % alike to their outputs' texts, and of all pairs
of two questions of one file only three reach 90 %, each a question the release repeats with the same answer
(Chinese Lang and Usage 51/52, Chinese Modern Lit 23/24, History 99/106)."""
_HEAD = re.compile(r'^\ufeff?\s*\{\s*"keywords?"\s*:')


def looks_like_results(path: Path) -> bool:
    """Whether ``path`` (a file, or a folder's first ``.json`` file) is a GAOKAO-Bench result file: it opens as
    the release's files do (``{"keyword": ...``) and names the model (``"model_name"``), which data files do not."""
    files = result_files(path)
    return bool(files) and _is_result_file(files[0])


def result_files(path: Path) -> list[Path]:
    """``path`` itself, or the result files in the folder ``path`` (not below it: ``result/`` holds the release's
    own scores), sorted."""
    if path.is_file():
        return [path]
    return sorted(file for file in path.glob("*.json") if _is_result_file(file))


def _is_result_file(file: Path) -> bool:
    if not_regular(file) is not None:
        return False
    try:
        with file.open(encoding="utf-8", errors="replace") as handle:
            head = handle.read(16384)  # the prefix prompt comes first; the examples after it
    except OSError:
        return False
    return _HEAD.match(head) is not None and '"model_name"' in head


def read_results(path: Path) -> list[Sample]:
    """Every example of the result files at ``path``; a file that is not one, or two files of one keyword, are
    errors naming the file."""
    files = result_files(path)
    if not files:
        raise InputError(f"{path}: no GAOKAO-Bench result files here (<model>_<keyword>.json, as Results/*_obj/)")
    seen: dict[str, Path] = {}
    samples: list[Sample] = []
    for file in files:
        keyword, examples = _load(file)
        if keyword in seen:
            raise InputError(
                f"{file}: a second result file of {keyword!r} (the first is {seen[keyword]}); "
                "pass one model's folder or one file"
            )
        seen[keyword] = file
        samples.extend(_samples(file, keyword, examples))
    return samples


def _load(file: Path) -> tuple[str, list[Any]]:
    refused = not_regular(file)
    if refused is not None:
        raise InputError.from_problem(refused)
    try:
        data = json.loads(file.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:  # ValueError: bad JSON, huge integers
        raise InputError(f"{file}: not a GAOKAO-Bench result file (JSON): {str(exc)[:120]}") from None
    if not isinstance(data, dict):
        raise InputError(f"{file}: expected one object {{keyword, model_name, example}}, got {describe(data)}")
    keyword = data.get("keyword", data.get("keywords"))
    if not isinstance(keyword, str) or not keyword:
        raise InputError.from_problem(
            Problem(file, None, "keyword", f"expected the data file's name, got {describe(keyword)}")
        )
    examples = data.get("example")
    if not isinstance(examples, list):
        raise InputError.from_problem(Problem(file, None, "example", f"expected a list, got {describe(examples)}"))
    prefix = data.get("prompt")
    return keyword, [(e, prefix if isinstance(prefix, str) else None) for e in examples]


def _samples(file: Path, keyword: str, examples: list[tuple[Any, str | None]]) -> Iterator[Sample]:
    positions: dict[int, int] = {}
    for number, (item, prefix) in enumerate(examples, start=1):

        def problem(field: str, message: str, number: int = number) -> InputError:
            return InputError.from_problem(Problem(file, None, field, message, record=f"example {number}"))

        if not isinstance(item, dict):
            raise problem("example", f"expected an object, got {describe(item)}")
        index = item.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise problem("index", f"expected the question's index (0, 1, ...), got {describe(index)}")
        if index in positions:
            raise problem("index", f"index {index} again (example {positions[index]} has it)")
        positions[index] = number
        question = item.get("question")
        output = item.get("model_output")
        fault = None
        if not isinstance(output, str):
            fault = str(Problem(file, None, "model_output", f"expected the model's text, got {describe(output)}",
                                record=str(index)))  # fmt: skip
        recorded = item.get("model_answer")
        yield Sample(
            file,
            None,
            str(index),
            FORMAT,
            None,
            keyword,
            index,
            clean_text(question) if isinstance(question, str) else None,
            "question" if isinstance(question, str) else "no question",
            (),
            (clean_text(output),) if isinstance(output, str) else (),
            None,
            prompt=clean_text(prefix + question.strip() + "\n") if prefix and isinstance(question, str) else None,
            fault=fault,
            recorded=tuple(printable(str(a))[:100] for a in recorded) if isinstance(recorded, list) else None,
            edited_at_least=EDITED_AT_LEAST,
        )
