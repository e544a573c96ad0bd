"""A headless Debian chromium driven by selenium, for tests of pages the project writes.

Install with ``scripts/setup_browser.sh``. Tests using it skip with the reason
when chromium, chromedriver or selenium is missing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

UI_WAIT_S = 120.0
"""How long a test waits for the page to reach a state. A wait ends as soon as the state holds, so this is
only the bound for a page that never gets there; on a busy machine a render can take seconds (#37)."""

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--window-size=1400,1000",
)


def chromium(profile: Path, downloads: Path) -> Any:
    """A fresh headless chromium (own profile folder) that saves downloads into ``downloads``."""
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        pytest.skip(f"{CHROMIUM} or {CHROMEDRIVER} is absent: run scripts/setup_browser.sh")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.add_experimental_option(
        "prefs", {"download.default_directory": str(downloads), "download.prompt_for_download": False}
    )
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return driver


def requested_urls(driver: Any) -> list[str]:
    """URLs the page asked for since the last call (from the performance log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] in ("Network.requestWillBeSent", "Network.webSocketCreated"):
            urls.append(message["params"].get("request", {}).get("url") or message["params"].get("url", ""))
    return urls


def console_errors(driver: Any) -> list[str]:
    """Console messages of level SEVERE since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def save_screenshot(driver: Any, path: Path, full_page: bool = True) -> Path:
    """A PNG of the page (grown to its full height, at most 4000 px)."""
    if full_page:
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1400, min(int(height) + 140, 4000))
    driver.save_screenshot(str(path))
    driver.set_window_size(1400, 1000)
    return path


def copy_if_asked(source: Path, target: Path, flag: str) -> None:
    """Copy a screenshot into the docs when the environment variable ``flag`` is set."""
    import os

    if os.environ.get(flag):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
