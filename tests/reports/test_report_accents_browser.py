"""Vectors on the page as a teacher writes them, in a real headless chromium (#36): ``\\overrightarrow{AB}``,
``\\overleftarrow{CD}`` and ``\\tilde{x}`` carry their mark where the page shows LaTeX as text (the question
table's stem column) and are typeset where it typesets; an accent over model text stays text."""

from __future__ import annotations

from typing import Any

import pytest

from kg.graph import node_ids
from reports import write_report
from tests._browser import UI_WAIT_S, console_errors
from tests._runs import Answer, question, write_bank, write_run

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VECTORS = r"已知 $\overrightarrow{AB}+\overrightarrow{BC}=\overrightarrow{AC}$，$\overleftarrow{CD}$ 与 $\tilde{x}$"
HOSTILE = r"向量 $\overrightarrow{<img src=x onerror=window.__pwned=1>}$ 与 \overleftarrow{<b>加粗</b>}"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    root = tmp_path_factory.mktemp("accents")
    qs = [
        question("v1", "数学", "平面向量", "向量的加法", stem=VECTORS),
        question("v2", "数学", "平面向量", "向量的加法", stem=HOSTILE),
    ]
    bank = write_bank(root / "bank", qs)
    answers = {
        "v1": Answer(
            True, output=r"由向量加法，$\overrightarrow{AB}+\overrightarrow{BC}=\overrightarrow{AC}$。答案是 A"
        ),
        "v2": Answer(False, output="答案是 B"),
    }
    run = write_run(root / "run", {q.id: q for q in qs}, answers, mode="zero-shot-cot", bank=bank)
    out = root / "report"
    write_report([run], out, plots=False)
    return (out / "index.html").resolve().as_uri(), node_ids(qs[0])["level2"]


def _wait(driver: Any, selector: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    script = "return !!document.querySelector(arguments[0])"
    WebDriverWait(driver, UI_WAIT_S).until(lambda d: d.execute_script(script, selector))


def test_vectors_carry_their_arrow_and_the_page_stays_text(driver: Any, page: tuple[str, str]) -> None:
    url, node = page
    driver.get("about:blank")
    console_errors(driver)  # drain the browser's own start-up messages
    driver.get(url + "#node/" + node)
    _wait(driver, "td.stemcol")
    cells = driver.execute_script("return [...document.querySelectorAll('td.stemcol')].map((e) => e.innerText)")
    vectors = next(c for c in cells if c.startswith("已知"))
    # the arrow (U+20D7), the left arrow (U+20D6) and the tilde (U+0303) after each letter, no LaTeX left
    assert "A\u20d7B\u20d7+B\u20d7C\u20d7=A\u20d7C\u20d7" in vectors, vectors
    assert "C\u20d6D\u20d6" in vectors and "x\u0303" in vectors and "\\" not in vectors, vectors
    hostile = next(c for c in cells if c.startswith("向量"))
    assert "<\u20d7i\u20d7m\u20d7g\u20d7" in hostile, hostile  # the tag is text, marked letter by letter
    assert driver.execute_script("return document.images.length") == 0
    assert driver.execute_script("return document.querySelector('td.stemcol b')") is None

    data = driver.execute_script("return JSON.parse(document.getElementById('report-data').textContent)")
    qi = data["questions"]["id"].index("v1")
    driver.get(url + f"#q/{qi}")
    _wait(driver, ".stem .katex")
    drawn = driver.execute_script(
        "return [...document.querySelectorAll('.stem .katex-html')].map((e) => e.innerText).join(' ')"
    )
    assert "overrightarrow" not in drawn and "\\" not in drawn, drawn
    assert driver.execute_script("return document.querySelectorAll('.stem .katex-html svg').length") >= 4
    assert driver.execute_script("return document.querySelectorAll('.answer ol.steps .katex-html svg').length") >= 3

    qi = data["questions"]["id"].index("v2")
    driver.get(url + f"#q/{qi}")
    _wait(driver, ".stem")
    assert driver.execute_script("return document.images.length") == 0
    assert driver.execute_script("return document.querySelector('.stem b')") is None
    assert driver.execute_script("return window.__pwned") is None
    assert console_errors(driver) == []
