"""Assemble the one-file HTML report: template + inline CSS + inline JS + the data as escaped JSON.

The data sits in ``<script type="application/json">`` (never executed) with
``<``, ``>`` and ``&`` written as ``\\u003c`` ``\\u003e`` ``\\u0026``, so no text in
it (``</script>``, ``<!--``) can close the block. The page's Content-Security-Policy
allows only the report's own script, by hash, and no network at all: even if
some text were ever parsed as HTML, an injected script or event handler could
not run, and nothing could be fetched.

Math is typeset by KaTeX, inlined from ``katex.min.js`` and ``katex.min.css`` (fonts as
``data:`` URIs; made by ``scripts/bundle_katex.py`` from the npm package, MIT notice at
their top): about 630 KiB more per page, and the page still fetches nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from importlib import resources
from typing import Any

ASSETS = "reports.assets"


def asset(name: str) -> str:
    """The text of a packaged asset (report.html, report.js, report.css, katex.min.js, katex.min.css)."""
    return resources.files(ASSETS).joinpath(name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside an HTML ``<script type="application/json">`` element."""
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError:  # a NaN slipped in: JSON has no NaN, the page reads null
        from reports.payload import clean

        text = json.dumps(clean(data), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def render(data: dict[str, Any], title: str = "k12eval report") -> str:
    """The complete HTML page."""
    script, katex_js = asset("report.js"), asset("katex.min.js")
    style, katex_css = asset("report.css"), asset("katex.min.css")
    policy = (
        "default-src 'none'; "
        f"script-src '{_hash(katex_js)}' '{_hash(script)}'; "
        f"style-src '{_hash(katex_css)}' '{_hash(style)}'; "
        "font-src data:; img-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'"
    )
    values = {
        "CSP": policy.replace('"', "&quot;"),
        "TITLE": _escape(title),
        "KATEX_CSS": katex_css,
        "CSS": style,
        "DATA": embed_json(data),
        "KATEX_JS": katex_js,
        "JS": script,
    }
    # One pass, so a placeholder-like string inside the data is never substituted.
    return re.sub(
        r"\{\{(CSP|TITLE|KATEX_CSS|CSS|DATA|KATEX_JS|JS)\}\}", lambda m: values[m.group(1)], asset("report.html")
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
