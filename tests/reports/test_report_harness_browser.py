"""A replayed answer's harness prompt in a real headless chromium (#27 item 1): the page shows the prompt
the model was really given, as text, whatever it holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from tests._browser import UI_WAIT_S, chromium
from tests._runs import question, write_bank
from tests.importer_helpers import write_jsonl

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PROMPT = '男人的杯子碎了。 왜냐하면 <img src=x onerror="window.__pwned=1"> $\\frac{1}{2}$'


def test_the_question_view_shows_the_harness_prompt_as_text(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    q = question("q0", "语文", "阅读", "因果", stem="男人的杯子碎了。原因是什么？", options=["甲", "乙"])
    bank = write_bank(tmp_path / "bank", [q])
    line = {
        "doc_id": 0,
        "doc": {"premise": "男人的杯子碎了。原因是什么？", "question": "원인"},
        "arguments": {"gen_args_0": {"arg_0": PROMPT, "arg_1": {"until": ["\n"]}}},
        "resps": [["答案是 A"]],
    }
    samples = write_jsonl(tmp_path / "lm" / "samples_kobest_copa_2024-05-01T10-00-00.jsonl", [line])
    run, out = tmp_path / "run", tmp_path / "report"
    ran = CliRunner().invoke(
        app, ["run", str(bank), "-b", "replay", "-m", "lm", "-B", f"path={samples}", "-o", str(run)]
    )
    assert ran.exit_code == 0, ran.output
    shown = CliRunner().invoke(app, ["report", str(run), "--out", str(out), "--no-plots"])
    assert shown.exit_code == 0, shown.output
    driver = chromium(tmp_path / "profile", tmp_path / "downloads")
    try:
        driver.get((out / "index.html").resolve().as_uri())
        data: dict[str, Any] = driver.execute_script(
            "return JSON.parse(document.getElementById('report-data').textContent)"
        )
        (run_id,) = data["answers"]
        driver.execute_script("location.hash = 'q/0'")
        panel = WebDriverWait(driver, UI_WAIT_S).until(
            lambda d: d.find_element(By.CSS_SELECTOR, f".answer[data-run='{run_id}'] details[data-harness]")
        )
        panel.find_element(By.TAG_NAME, "summary").click()
        assert panel.find_element(By.CSS_SELECTOR, "pre").text == PROMPT
        assert "提示" in panel.find_element(By.TAG_NAME, "summary").text
        assert driver.execute_script("return window.__pwned") is None
        assert driver.execute_script("return document.images.length") == 0
        assert json.dumps(data).count("onerror") == 1  # in the payload once: the harness prompt, as data
    finally:
        driver.quit()
