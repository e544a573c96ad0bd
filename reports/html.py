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
import math
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

ASSETS = "reports.assets"


def asset(name: str) -> str:
    """The text of a packaged asset (report.html, report.js, report.css, katex.min.js, katex.min.css)."""
    return resources.files(ASSETS).joinpath(name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside an HTML ``<script type="application/json">`` element."""
    try:
        return "".join(json_chunks(data))
    except ValueError:  # a NaN slipped in: JSON has no NaN, the page reads null
        return "".join(json_chunks(clean(data)))


_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
STREAMED_DEPTH = 3
"""Levels of nested dicts :func:`json_chunks` writes key by key: the page's per-question blocks (``answers``:
run -> question -> answer) are encoded one at a time, never the whole payload as one string."""


class Encoded(str):
    """The JSON of one value of the payload, made safe for the page (:func:`encoded`): written as it is."""


def encoded(value: Any) -> Any:
    """``value`` as the page writes it, encoded now (:class:`Encoded`): a big page's 20,000 questions and answers
    held as text while the rest is built, not as nested dicts. ``value`` itself when it holds a NaN (the page is
    then written cleaned, :func:`clean`, which reads an :class:`Encoded` back)."""
    try:
        return Encoded(_safe(_JSON.encode(value)))
    except ValueError:
        return value


def clean(value: Any) -> Any:
    """JSON-safe: NaN and infinities become ``null``, floats keep 4 decimals, numpy scalars become Python."""
    if isinstance(value, Encoded):  # encoded before a NaN elsewhere was seen: cleaned as the rest
        return clean(json.loads(value))
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else round(value, 4)
    return value


def json_chunks(data: Any, depth: int = STREAMED_DEPTH) -> Iterator[str]:
    """:func:`embed_json`'s text in pieces, the same characters: a dict with string keys down to ``depth``
    levels key by key, each value by the C encoder (an :class:`Encoded` one as it is). A NaN raises
    ``ValueError`` (the caller starts again)."""
    if isinstance(data, Encoded):
        yield data
    elif depth and isinstance(data, dict) and all(isinstance(key, str) for key in data):
        yield "{"
        for i, (key, value) in enumerate(data.items()):
            yield ("," if i else "") + _safe(_JSON.encode(key)) + ":"
            yield from json_chunks(value, depth - 1)
        yield "}"
    else:
        yield _safe(_JSON.encode(data))


def _safe(text: str) -> str:
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def render(data: dict[str, Any], title: str = "k12eval report") -> str:
    """The complete HTML page."""
    head, tail = _frame(title)
    return head + embed_json(data) + tail


def write_page(path: Path, data: dict[str, Any], title: str = "k12eval report") -> None:
    """:func:`render`'s page written to ``path`` as it is encoded (a million questions' payload is never one
    string)."""
    head, tail = _frame(title)
    with path.open("w", encoding="utf-8") as out:
        out.write(head)
        start = out.tell()
        try:
            out.writelines(json_chunks(data))
        except ValueError:  # a NaN slipped in: written again cleaned, as embed_json does
            out.seek(start)
            out.truncate()
            out.writelines(json_chunks(clean(data)))
        out.write(tail)


def _frame(title: str) -> tuple[str, str]:
    """The page before and after its data: the template with everything but the data filled in."""
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
        "KATEX_JS": katex_js,
        "JS": script,
    }
    head, _, tail = asset("report.html").partition("{{DATA}}")
    # One pass each, so a placeholder-like string inside a value is never substituted.
    fill = re.compile(r"\{\{(CSP|TITLE|KATEX_CSS|CSS|KATEX_JS|JS)\}\}")
    return fill.sub(lambda m: values[m.group(1)], head), fill.sub(lambda m: values[m.group(1)], tail)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
