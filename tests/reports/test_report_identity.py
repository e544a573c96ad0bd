"""Each report keys the teacher's verdicts by its own identity, so two reports never share them (#14 finding 13)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reports import write_report
from tests._runs import SMALL_ANSWERS, Answer, small_bank, write_bank, write_run
from tests.reports.test_report import page_data


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("identity")
    bank = small_bank()
    data = write_bank(root / "bank", list(bank.values()))
    first = write_run(root / "a", bank, SMALL_ANSWERS, bank=data)
    second = write_run(root / "b", bank, {q: Answer(True) for q in bank}, bank=data, model="other-model")
    out = {"a": root / "report-a", "b": root / "report-b", "a-again": root / "report-a2"}
    write_report([first], out["a"], plots=False)
    write_report([second], out["b"], plots=False)
    write_report([first], out["a-again"], plots=False)  # the same run, another report folder
    return out


def identity(folder: Path) -> str:
    return page_data((folder / "index.html").read_text(encoding="utf-8"))["meta"]["identity"]


@pytest.mark.slow
def test_reports_of_different_runs_or_folders_have_different_identities(reports: dict[str, Path]) -> None:
    ids = {name: identity(folder) for name, folder in reports.items()}
    assert len(set(ids.values())) == 3
    assert all(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids.values())


@pytest.mark.slow
def test_rebuilding_a_report_keeps_its_identity_and_so_its_verdicts(reports: dict[str, Path]) -> None:
    before = identity(reports["a"])
    write_report([reports["a"].parent / "a"], reports["a"], plots=False, title="rebuilt")
    assert identity(reports["a"]) == before


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests._browser import chromium

    root = tmp_path_factory.mktemp("chromium-identity")
    driver = chromium(root / "profile", root / "downloads")
    try:
        yield driver
    finally:
        driver.quit()


@pytest.mark.browser
@pytest.mark.slow
def test_two_reports_in_one_browser_keep_their_own_verdicts(reports: dict[str, Path], browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tests._browser import UI_WAIT_S

    driver = browser

    def open_page(name: str, hash_: str) -> None:
        driver.get((reports[name] / "index.html").resolve().as_uri() + "#" + hash_)
        driver.refresh()

    def count(name: str) -> str:
        open_page(name, "verdicts")
        return WebDriverWait(driver, UI_WAIT_S).until(lambda d: d.find_element(By.ID, "export-verdicts")).text

    open_page("a", "q/0")
    driver.execute_script("localStorage.clear()")
    driver.refresh()
    WebDriverWait(driver, UI_WAIT_S).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "button[data-verdict='all-right']")
    ).click()
    assert "(1)" in count("a")
    assert "(0)" in count("b") and "(0)" in count("a-again")
    open_page("b", "verdicts")
    WebDriverWait(driver, UI_WAIT_S).until(lambda d: d.find_element(By.ID, "clear-verdicts")).click()
    assert "(1)" in count("a")  # clearing report b left report a's verdicts alone


def test_the_legacy_identity_is_the_released_pages_storage_name() -> None:
    """``legacy_report_identity`` names the storage the released page (ac11d53) kept a teacher's marks in: the
    value below is what that release's ``report_identity(runs, out)`` gave for these runs and folder."""
    from types import SimpleNamespace as Stub
    from typing import cast

    from reports.payload import legacy_report_identity
    from reports.runs import Run

    def run(name: str, bank: str | None) -> Stub:
        header = Stub(
            bank=bank, model="模型" + name, mode="zero-shot", variant="original", started_at="2026-11-28T10:00:00+00:00"
        )
        return Stub(id=name, dir=f"/srv/runs/{name}", bank="/srv/bank", header=header)

    runs = cast(list[Run], [run("a", "/srv/bank"), run("b", None)])
    assert legacy_report_identity(runs, Path("/srv/report")) == "60062a807112f2df"
