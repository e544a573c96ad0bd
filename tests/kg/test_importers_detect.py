"""Format detection from a file's or folder's layout, and its refusal when nothing fits."""

from __future__ import annotations

from pathlib import Path

import pytest

from k12eval.cli._wording import said
from kg.errors import InputError
from kg.importers import FORMATS, detect_format, load_questions
from tests.importer_helpers import FIXTURES, write_jsonl, write_text


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("ck12", "ck12"),
        ("ck12/shuffle_options", "ck12"),
        ("ck12/original_data/初中/数学/单选.jsonl", "ck12"),
        ("cmmlu", "cmmlu"),
        ("cmmlu/test", "cmmlu"),
        ("cmmlu/dev/ancient_chinese.csv", "cmmlu"),
        ("ceval", "ceval"),
        ("ceval/val", "ceval"),
        ("ceval/test/logic_test.csv", "ceval"),
        ("xiezhi", "xiezhi"),
        ("xiezhi/xiezhi_mini.jsonl", "xiezhi"),
    ],
)
def test_fixture_layouts_are_recognised(relative: str, expected: str) -> None:
    assert detect_format(FIXTURES / relative) == expected


def test_every_format_has_a_detect_and_read() -> None:
    import importlib

    for name, module in FORMATS.items():
        loaded = importlib.import_module(module)
        assert callable(loaded.detect) and callable(loaded.read), name


def test_a_mapping_file_chooses_the_mapped_format() -> None:
    assert detect_format(FIXTURES / "cmmlu", mapping=FIXTURES / "mapped" / "mapping.toml") == "mapped"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("bank.jsonl", '{"q": "题", "a": "A"}\n'),
        ("bank.csv", "题目,答案\n题,A\n"),
        ("notes.txt", "hello\n"),
    ],  # an empty .jsonl is an empty CK12 bank (#28 item 6): tests/conformance/hub/test_hub_layouts.py
)
def test_unknown_layout_says_what_to_do(tmp_path: Path, name: str, content: str) -> None:
    file = write_text(tmp_path / name, content)
    with pytest.raises(InputError, match=r"pass fmt= with one of .*naming its columns: mapping=") as caught:
        detect_format(file)
    assert str(file) in str(caught.value)
    assert "pass --format with one of" in said(caught.value) and said(caught.value).endswith("columns: --mapping)")


def test_missing_path() -> None:
    with pytest.raises(InputError, match="no such file or folder"):
        detect_format(Path("/nonexistent/bank"))


def test_unknown_format_name() -> None:
    with pytest.raises(InputError, match="unknown format 'mmlu'"):
        load_questions(FIXTURES / "cmmlu", "mmlu")


def test_explicit_format_overrides_detection(tmp_path: Path) -> None:
    file = write_jsonl(
        tmp_path / "x.jsonl", [{"question": "1+1", "labels": ["理学"], "answer": "2", "options": "1\n2"}]
    )
    assert detect_format(file) == "xiezhi"
    with pytest.raises(InputError, match="field 'id': missing field"):
        load_questions(file, "ck12")
