"""Fixtures of the report tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests._browser import chromium


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless chromium (own profile and downloads folders) for a test module; skipped when absent."""
    root = tmp_path_factory.mktemp("chromium")
    (root / "downloads").mkdir()
    browser = chromium(root / "profile", root / "downloads")
    try:
        yield browser
    finally:
        browser.quit()
