"""Math in the report, typeset by the bundled KaTeX in a real headless chromium: stems, options,
analyses, model steps and extracted answers render; math from the model cannot link, load or run
anything; the page fetches nothing."""

from __future__ import annotations

from typing import Any

import pytest

from reports import write_report
from tests._browser import UI_WAIT_S, console_errors, requested_urls
from tests._runs import Answer, question, write_bank, write_run

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HOSTILE_MATH = (
    r"第一步：$\href{javascript:window.__pwned=1}{点我}$ 与 $\url{javascript:window.__pwned=2}$。"
    "\n"
    r'第二步：$x<img src=x onerror="window.__pwned=3">$ 和 \(\htmlId{evil}{y}\) 以及 $\includegraphics{http://example.com/a.png}$。'
    "\n"
    r"第三步：$\def\a{\a\a}\a$ 故答案是 A"
)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("math")
    qs = [
        question(
            "m1",
            "数学",
            "数与式",
            "分数",
            stem=r"计算 $\frac{1}{2}+\frac{1}{3}$ 的值，并填在 $\underline{\quad}$ 上",
            options=[r"$\frac{5}{6}$", r"$\sqrt{43}$", "3", "4"],
            analysis=r"通分得 \[ \boxed{\frac{5}{6}} \]" + "\n" + r"所以 $$6<\sqrt{43}<7$$ 不是答案",
        ),
        question("m2", "数学", "数与式", "分数", stem="下列说法正确的是"),
        question("m3", "数学", "数与式", "分数", "fill_in_blank", stem=r"$\frac{1}{2}$ 的倒数是", answer=["2"]),
    ]
    bank = write_bank(root / "bank", qs)
    answers = {
        "m1": Answer(
            True, output="第一步：$$\\frac{1}{2}+\\frac{1}{3}=\\frac{5}{6}$$\n第二步：所以 \\(x^2\\) 不变\n答案是 A"
        ),
        "m2": Answer(True, output=HOSTILE_MATH),
        "m3": Answer(False, output=r"答案是 $\frac{1}{2}$", extracted=[r"$\frac{1}{2}$"]),
    }
    run = write_run(root / "run", {q.id: q for q in qs}, answers, mode="zero-shot-cot", bank=bank)
    out = root / "report"
    write_report([run], out, plots=False)
    return (out / "index.html").resolve().as_uri()


def _open(driver: Any, page: str, qi: int) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(page + f"#q/{qi}")
    WebDriverWait(driver, UI_WAIT_S).until(lambda d: d.execute_script("return !!document.querySelector('.answer')"))


def _question_index(driver: Any, qid: str) -> int:
    data = driver.execute_script("return JSON.parse(document.getElementById('report-data').textContent)")
    return data["questions"]["id"].index(qid)


def test_math_renders_everywhere_and_nothing_leaves_the_page(driver: Any, page: str) -> None:
    driver.get("about:blank")
    requested_urls(driver), console_errors(driver)  # drain the browser's own start-up traffic
    driver.get(page)
    _open(driver, page, _question_index(driver, "m1"))
    count = "return document.querySelectorAll(arguments[0]).length"
    assert driver.execute_script(count, ".stem .katex") == 2  # \frac and \underline
    assert driver.execute_script("return document.querySelector('.stem .katex .mfrac') !== null")
    assert driver.execute_script(count, ".card ol.options .katex") == 2
    assert driver.execute_script(count, ".card ol.steps .katex-display") == 1  # \[ \boxed{..} \]
    assert driver.execute_script(count, ".answer ol.steps .katex") == 2
    assert driver.execute_script(count, ".math-error") == 0
    stem = driver.execute_script("return document.querySelector('.stem').innerText")
    assert "$" not in stem and "计算" in stem

    _open(driver, page, _question_index(driver, "m3"))
    assert driver.execute_script(count, "dd.extracted .katex .mfrac") == 1

    _open(driver, page, _question_index(driver, "m2"))
    steps = driver.execute_script("return document.querySelector('.answer ol.steps').innerText")
    assert "javascript:" in steps and "onerror" in steps  # shown as text, not as a link or an element
    assert "href{javascript:window.__pwned=1}" in steps  # refused as math: the formula as text
    errors = driver.execute_script(
        "return [...document.querySelectorAll('.answer .math-error')].map((e) => e.textContent)"
    )
    # KaTeX cannot parse the tag (its quotes), and the \def loop passes maxExpand: both left as their text
    assert errors == ['$x<img src=x onerror="window.__pwned=3">$', r"$\def\a{\a\a}\a$"], errors
    hrefs = driver.execute_script("return [...document.querySelectorAll('a')].map((a) => a.getAttribute('href'))")
    assert all(h.startswith("#") for h in hrefs), hrefs
    assert driver.execute_script("return document.getElementById('evil')") is None
    assert driver.execute_script("return document.images.length") == 0
    assert driver.execute_script("return window.__pwned") is None
    assert driver.execute_script("return document.scripts.length") == 3  # data, KaTeX, the report's own
    urls = requested_urls(driver)
    assert urls and all(u.startswith((page.split("#")[0], "data:")) for u in urls), urls
    assert console_errors(driver) == []
