"""Other harnesses' output files as users keep them: which files a folder holds, and their JSON Lines.

lm-eval's ``samples_<task>_<date>.jsonl`` is often kept gzip-compressed (``.jsonl.gz``);
OpenCompass leaves ``tmp_<dataset>.jsonl`` beside or instead of ``<dataset>.json`` when a run
stops before the end. Every line goes through :func:`kg.jsonl.parse_json_line`, so a bad line
is an error naming its line; a gzip file that cannot be decompressed is an error naming the file.
A lone surrogate (``"\\ud83d"``, as a harness writing JSON with ``ensure_ascii`` leaves half an emoji)
becomes U+FFFD: these files hold model output, which is kept whatever it holds.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kg.errors import InputError, Problem
from kg.jsonl import jsonl_objects, not_regular, parse_json_line, read_lines

GZIP = ".gz"
PATTERNS = {"lm-eval": ("samples_*.jsonl", "samples_*.jsonl.gz"), "opencompass": ("*.json", "*.jsonl")}
"""File names each format's files have in a folder."""
LM_EVAL_DATE = re.compile(r"_\d{4}-\d{2}-\d{2}T[\d.\-]+$")
"""The date lm-eval ends its file names with: ``samples_<task>_2024-05-01T10-00-00.123456``, ``results_<same>``."""
OPENCOMPASS_TMP = "tmp_"
"""Prefix of the JSON Lines an OpenCompass inferencer appends to while it runs."""


def output_files(path: Path, fmt: str) -> list[Path]:
    """``path`` itself, or the format's files in the folder ``path``, sorted.

    lm-eval writes below ``--output_path`` in a folder per model: its files are looked for down
    the tree; OpenCompass's are in ``predictions/<model>/`` itself.
    """
    if path.is_file():
        return [path]
    find = path.rglob if fmt == "lm-eval" else path.glob
    return sorted({file for pattern in PATTERNS[fmt] for file in find(pattern)})


def opencompass_model_folder(work: Path, model: str) -> Path | None:
    """``predictions/<model>`` of an OpenCompass work folder (``outputs/default/<time>``, the folder OpenCompass
    names when it ends), or ``None`` when ``work`` holds no ``predictions/``.

    The model is ``model`` (the run's ``-m``) when such a folder is there, else the only model predicted;
    several others are refused, naming them: one run replays one model.
    """
    predictions = work / "predictions"
    if not predictions.is_dir():
        return None
    models = sorted(p.name for p in predictions.iterdir() if p.is_dir())
    if model in models:
        return predictions / model
    if len(models) == 1:
        return predictions / models[0]
    held = ", ".join(models) or "no model"
    raise InputError(
        lambda name: (
            f"{work}: an OpenCompass work folder with the predictions of {held}; name one as the model "
            f"({name('model')}), or give its folder {predictions}/<model> as the path"
        )
    )


def base_name(file: Path) -> str:
    """The file's name without its data suffixes: ``samples_x_<date>.jsonl.gz`` -> ``samples_x_<date>``."""
    name = file.name.removesuffix(GZIP)
    for suffix in (".jsonl", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def is_jsonl(file: Path) -> bool:
    """Whether ``file`` is JSON Lines (``.jsonl``, or ``.jsonl.gz``)."""
    return file.name.removesuffix(GZIP).endswith(".jsonl")


def jsonl_records(file: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` of each line of ``file``, plain or gzip-compressed (``.gz``).

    A bad line raises :class:`InputError` naming it; a gzip file that is truncated, corrupt or
    not gzip at all raises one naming the file (the lines before the damage have been yielded).
    """
    if not file.name.endswith(GZIP):
        yield from jsonl_objects(file, replace_surrogates=True)  # model output: kept, made text
        return
    refused = not_regular(file)
    if refused is not None:
        raise InputError.from_problem(refused)
    try:
        # utf-8-sig and surrogateescape as kg.jsonl reads plain files: a bad byte spoils its line only
        with gzip.open(file, "rt", encoding="utf-8-sig", errors="surrogateescape", newline="\n") as handle:
            for number, line in read_lines(handle, file):
                if isinstance(line, Problem):
                    raise InputError.from_problem(line)
                if not line.strip():
                    continue
                obj = parse_json_line(line, file, number, replace_surrogates=True)
                if isinstance(obj, Problem):
                    raise InputError.from_problem(obj)
                yield number, obj
    except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError; a cut file ends in EOFError
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise InputError(f"{file}: cannot read this gzip file, truncated or corrupt ({reason})") from None


def first_record(file: Path) -> dict[str, Any] | None:
    """The first object of a JSON Lines file (plain or gzip), ``None`` when it has none."""
    for _, item in jsonl_records(file):
        return item
    return None
