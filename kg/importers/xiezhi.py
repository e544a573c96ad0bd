"""Xiezhi: JSON lines of ``{question, labels, answer, options}``, labels placed in Xiezhi's discipline taxonomy.

Read as released: ``Tasks/Knowledge/Benchmarks/{test,train}/xiezhi_<set>_<lang>/xiezhi.v1.1.json``,
JSON lines in files named ``.json`` (a ``.jsonl`` of the same records too), a file or any folder above
them; the taxonomy is found in ``discipline_taxonomy/`` beside the data or up to three folders above it
(the release keeps it in ``Tasks/Knowledge/``). ``options`` is one string, the options joined by ``\\n``
(a JSON list is taken too); ``answer`` is the text of the right option, which must match exactly one
option (after trimming spaces). Ids are ``xiezhi/<name>/<line>``, the name being the file's stem, or its
folder's name for the release's ``xiezhi.v1.1.json`` (``xiezhi/xiezhi_spec_chn/1``), so the
specialty, interdiscipline and train files and both languages load together.

Graph coordinates: the labels are placed in the taxonomy (门类 -> 一级学科 ->
二级学科, see :mod:`kg.importers._taxonomy`); subject = 门类, level 1 = 一级学科,
level 2 = 二级学科, and a level the labels do not reach repeats the name above
it. All labels are kept in ``extra["labels"]``; the test set a question belongs to, Xiezhi-Specialty
or Xiezhi-Interdiscipline, follows the paper's rule, from the number of disciplines it is labelled
with: 3 or fewer is Specialty, 4 or more Interdiscipline (:func:`xiezhi_split`), kept in
``extra["xiezhi_set"]`` (``specialty`` / ``interdiscipline``), whatever the file is called. The release's
split, ``test`` (the specialty and interdiscipline files) or ``train``, is ``extra["split"]``, read from
the file's and its folders' names (:func:`release_split`). Without a taxonomy file the
questions are still imported, under the subject ``未归类`` with their labels as
the knowledge point, each with a warning.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from kg.errors import InputError, Problem
from kg.importers._found import Found, ImportOptions, located
from kg.importers._lines import first_record, json_lines_files
from kg.importers._taxonomy import Taxonomy, find_taxonomy, load_taxonomy
from kg.jsonl import iter_jsonl
from kg.records import FURTHER_PLACES, Knowledge, Option, Question, QuestionType, detect_language

log = logging.getLogger(__name__)

KEYS = ("question", "labels", "answer", "options")
UNPLACED = "未归类"
"""Subject of every question read without a taxonomy."""
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


_RELEASE_FILE = re.compile(r"^xiezhi\.v[\d.]+$")
"""The release's file stem (``xiezhi.v1.1``, ``xiezhi.v1``): the same in every folder, so its folder names it."""
_TEST_SETS = re.compile(r"(^|_)(spec|inter)(_|$)")
_TRAIN = re.compile(r"(^|_)train(_|$)")


def detect(path: Path) -> bool:
    """JSON lines (``.jsonl``, or ``.json`` as released) whose first record has Xiezhi's keys."""
    record = first_record(path)
    return record is not None and set(KEYS) <= record.keys()


def xiezhi_files(path: Path) -> list[Path]:
    """The files to read: ``path`` itself, or every JSON-lines file below it (the taxonomy's JSON documents are not)."""
    return json_lines_files(path)


def file_name(file: Path) -> str:
    """The name in a question's id: the file's stem, or its folder's name for the release's ``xiezhi.v1.1.json``."""
    stem = file.name.removesuffix(file.suffix)
    return file.parent.name if _RELEASE_FILE.match(stem) and file.parent.name else stem


def release_split(file: Path) -> str | None:
    """``test`` for the specialty and interdiscipline files, ``train`` for the training file, from the file's
    name or its folders' (``Benchmarks/test/xiezhi_spec_chn/xiezhi.v1.1.json``, ``xiezhi_train_chn.jsonl``);
    ``None`` for a file of another name."""
    for name in (file.stem, file.parent.name, file.parent.parent.name):
        lowered = name.lower()
        if _TEST_SETS.search(lowered) or lowered == "test":
            return "test"
        if _TRAIN.search(lowered) or lowered == "train":
            return "train"
    return None


_LANGUAGES: dict[str, Literal["zh", "en"]] = {"chn": "zh", "eng": "en"}
_LANGUAGE_PART = re.compile(r"(?:^|_)(chn|eng)(?:_|\.|$)")


def release_language(file: Path) -> Literal["zh", "en"] | None:
    """``zh`` / ``en`` for a file the release names ``_chn`` / ``_eng`` (or in such a folder); ``None`` otherwise.

    The release's language is the question's, as its evaluator prompts a whole file in one language: a
    Chinese question whose stem is mostly a formula or English words stays Chinese (32 of the 24,787
    Chinese test questions would be told English from their text)."""
    for name in (file.name, file.parent.name):
        found = _LANGUAGE_PART.search(name.lower())
        if found:
            return _LANGUAGES[found.group(1)]
    return None


def read(path: Path, options: ImportOptions) -> Iterator[Found | Problem]:
    """Yield the questions (and problems) of every Xiezhi JSON-lines file under ``path``."""
    files = xiezhi_files(path)
    if not files:
        raise InputError.from_problem(
            Problem(path, None, None, "no Xiezhi JSON-lines files here (.jsonl, or .json as released)")
        )
    tree_files = find_taxonomy(path, options.taxonomy)
    taxonomy: Taxonomy | None = None
    if options.taxonomy is not None and not tree_files:
        raise InputError.from_problem(
            Problem(options.taxonomy, None, None, "no subjects_tree_chn.json (or _eng) in this folder")
        )
    if tree_files:
        loaded = load_taxonomy(tree_files)
        if isinstance(loaded, Problem):
            raise InputError.from_problem(loaded)
        taxonomy = loaded
    else:
        log.warning(
            "xiezhi: no discipline taxonomy found (discipline_taxonomy/subjects_tree_chn.json beside %s or up to "
            "three folders above it, or given as the taxonomy): questions are imported under the subject %s with their labels as the "
            "knowledge point",
            path,
            UNPLACED,
        )
    for file in files:
        for line, obj in iter_jsonl(file):
            if isinstance(obj, Problem):
                yield obj
            else:
                yield located(parse_record(obj, file, line, taxonomy), file, line)


def parse_record(obj: dict[str, Any], file: Path, line: int, taxonomy: Taxonomy | None) -> Question | Problem:
    """One Xiezhi record as a :class:`Question`, or the :class:`Problem` that stops it."""
    qid = f"xiezhi/{file_name(file)}/{line}"

    def problem(field: str | None, message: str) -> Problem:
        return Problem(file, line, field, message, record=qid)

    for key in KEYS:
        if key not in obj:
            return problem(key, "missing field")
    stem, labels, answer = obj["question"], obj["labels"], obj["answer"]
    if not isinstance(stem, str) or not stem.strip():
        return problem("question", f"expected a non-empty string, got {stem!r:.60}")
    if not isinstance(labels, list) or not labels or not all(isinstance(x, str) and x.strip() for x in labels):
        return problem("labels", f"expected a non-empty list of discipline names, got {labels!r:.80}")
    if not isinstance(answer, str) or not answer.strip():
        return problem("answer", f"expected the text of the right option, got {answer!r:.60}")
    texts = split_options(obj["options"])
    if isinstance(texts, str):
        return problem("options", texts)
    matches = [i for i, text in enumerate(texts) if text == answer.strip()]
    if len(matches) != 1:
        found = "no option" if not matches else f"{len(matches)} options ({', '.join(_LETTERS[i] for i in matches)})"
        return problem("answer", f"the answer {answer.strip()!r:.60} matches {found}; it must match exactly one")

    labels = [x.strip() for x in labels]
    placed = place(labels, taxonomy)
    if isinstance(placed, str):
        return problem("labels", placed)
    knowledge, subject, warnings, further = placed
    extra: dict[str, Any] = {"labels": labels, "xiezhi_set": xiezhi_split(labels)}
    if further:
        extra[FURTHER_PLACES] = further
    split = release_split(file)
    if split is not None:
        extra["split"] = split
    if warnings:
        extra["warnings"] = warnings
    try:
        return Question(
            id=qid,
            source="xiezhi",
            subject=subject,
            type=QuestionType.SINGLE,
            stem=stem.strip(),
            options=[Option(label=_LETTERS[i], text=text) for i, text in enumerate(texts)],
            answer=[_LETTERS[matches[0]]],
            knowledge=knowledge,
            variant="original" if len(texts) <= 4 else f"options-{len(texts)}",
            language=release_language(file) or detect_language(stem),
            extra=extra,
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        return problem(".".join(map(str, error["loc"])) or None, error["msg"])


SPECIALTY_MAX_DISCIPLINES = 3
"""Xiezhi-Specialty: questions labelled with at most 3 disciplines; Xiezhi-Interdiscipline: 4 or more."""


def xiezhi_split(labels: list[str]) -> str:
    """``specialty`` for a question labelled with 3 disciplines or fewer, else ``interdiscipline`` (the paper's rule)."""
    return "specialty" if len(set(labels)) <= SPECIALTY_MAX_DISCIPLINES else "interdiscipline"


def split_options(raw: object) -> list[str] | str:
    """The option texts of ``raw`` (joined by newlines, or a list); a message when they are unusable."""
    if isinstance(raw, str):
        texts = [t.strip() for t in raw.strip("\n").split("\n")]
    elif isinstance(raw, list) and all(isinstance(t, str) for t in raw):
        texts = [t.strip() for t in raw]
    else:
        return f"expected the options joined by newlines, got {json.dumps(raw, ensure_ascii=False)[:60]}"
    if len(texts) < 2:
        return f"expected at least 2 options, found {len(texts)}"
    if len(texts) > len(_LETTERS):
        return f"at most {len(_LETTERS)} options can be lettered, found {len(texts)}"
    empty = [str(i + 1) for i, t in enumerate(texts) if not t]
    if empty:
        return f"option {', '.join(empty)} is empty"
    return texts


def place(labels: list[str], taxonomy: Taxonomy | None) -> tuple[Knowledge, str, list[str], list[list[str]]] | str:
    """Knowledge coordinates, subject, warnings and the further places (``[门类, 一级学科, 二级学科]`` each, in
    ``extra["further_places"]``: :func:`kg.graph.placements`) for ``labels``; a message when none is in the taxonomy."""
    if taxonomy is None:
        joined = " + ".join(labels)
        warning = "no Xiezhi taxonomy was found: the labels are not placed in 门类 / 一级学科 / 二级学科"
        return Knowledge(level1=joined, level2=joined, path=[UNPLACED, joined]), UNPLACED, [warning], []
    node = taxonomy.place(labels)
    if node is None:
        return f"none of the labels {labels} is in the taxonomy {taxonomy.files[0]}"
    unknown = [x for x in labels if x not in taxonomy.nodes]
    warnings = [f"label(s) not in the taxonomy: {', '.join(unknown)}"] if unknown else []
    level1, level2 = _levels(node)
    further = [[other[0], *_levels(other)] for other in taxonomy.further(labels, node)]
    return Knowledge(category=node[0], level1=level1, level2=level2, path=list(node)), node[0], warnings, further


def _levels(node: tuple[str, ...]) -> tuple[str, str]:
    """A taxonomy node's level-1 and level-2 names; a level it does not reach repeats the name above it."""
    level1 = node[1] if len(node) > 1 else node[0]
    return level1, node[2] if len(node) > 2 else level1
