"""Fixtures for the model-management tests: a fake site-packages on sys.path, a fresh cache, a catalogue."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from k12eval.models import Catalogue, parse_catalogue


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty folder on ``sys.path`` where fake packages get installed."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    importlib.invalidate_caches()
    yield folder
    importlib.invalidate_caches()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh K12EVAL_HOME, with the hub cache pointed at an empty folder."""
    folder = tmp_path / "k12home"
    monkeypatch.setenv("K12EVAL_HOME", str(folder))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    return folder


@pytest.fixture
def make_catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Catalogue]:
    """Build a catalogue from entries, and make it the one ``$K12EVAL_CATALOGUE`` names (for the CLI)."""

    def build(*entries: dict[str, Any]) -> Catalogue:
        data = {"catalogue_version": 1, "models": list(entries)}
        path = tmp_path / "catalogue.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        monkeypatch.setenv("K12EVAL_CATALOGUE", str(path))
        return parse_catalogue(data, str(path))

    return build
