"""POST JSON with retries: exponential backoff with jitter on 429, 5xx and connection errors.

A ``Retry-After`` (or ``retry-after-ms``) header from the server wins over the computed
backoff. Failures that retrying cannot fix (400, 401, 404...) raise at once.
"""

from __future__ import annotations

import email.utils
import logging
import math
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

log = logging.getLogger(__name__)
RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class RequestFailed(Exception):
    """A request that got no usable answer, after any retries; the text says why."""

    def __init__(self, message: str, *, status: int | None = None, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        """The HTTP status of a refusal (400...), ``None`` for a failure without one."""
        self.param = param
        """The request parameter the server's error names (OpenAI's ``error.param``), if it names one."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry."""

    max_retries: int = 5
    """Retries after the first attempt."""
    backoff_s: float = 1.0
    """First delay; doubled each retry."""
    max_backoff_s: float = 60.0
    """Cap on a computed delay."""
    max_retry_after_s: float = 300.0
    """Cap on a server-requested delay."""

    def __post_init__(self) -> None:
        # Before: max_retries=-1 sent nothing and recorded every question as a malformed answer
        # (UnboundLocalError), a negative backoff every retried one (sleep length must be non-negative).
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ValueError(f"max_retries must be a whole number of at least 0, got {self.max_retries!r}")
        for name in ("backoff_s", "max_backoff_s", "max_retry_after_s"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a number of seconds of at least 0, got {value!r}")

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after_s)
        # Jitter spreads out the clients that a shared overload made fail together.
        return min(self.backoff_s * 2**retry, self.max_backoff_s) * rng.uniform(0.5, 1.0)


def parse_retry_after(headers: httpx.Headers) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, ``Retry-After`` seconds or HTTP date."""
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return _seconds(float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return _seconds(float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _seconds(value: float) -> float:
    """A finite delay; ``NaN`` and infinities are no delay at all (the computed backoff is used)."""
    if not math.isfinite(value):
        raise ValueError(value)
    return value


_USER_PART = re.compile(r"(?<=://)[^/\s@]+(?=@)")
"""The user part of a URL in a text (``http://user:password@proxy``)."""


def shown_url(url: str) -> str:
    """``url`` as an error or a log line may show it: its user part (``https://user:sk-...@host``) and the query's
    values (``?key=sk-...``), where some gateways take the API key, are masked.

    A failed request's error is kept in ``records.jsonl`` and shown on the report's page, which is shared.
    """
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    query = "&".join(
        f"{pair.split('=', 1)[0]}=***" if "=" in pair else "***" for pair in parts.query.split("&") if pair
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def error_text(response: httpx.Response) -> str:
    """``HTTP 429: <the server's message>`` from an error response."""
    message = response.text[:300]
    try:
        body = response.json()
    except (ValueError, RecursionError):
        body = None
    if isinstance(body, dict):
        detail = body.get("error", body.get("detail", body.get("message")))
        if isinstance(detail, dict):
            detail = detail.get("message", detail)
        if detail:
            message = str(detail)[:300]
    return f"HTTP {response.status_code}: {message}".rstrip(": ")


def error_param(response: httpx.Response) -> str | None:
    """The parameter an error response names: OpenAI's ``{"error": {"param": "temperature"}}``, else ``None``."""
    try:
        body = response.json()
    except (ValueError, RecursionError):
        return None
    detail = body.get("error") if isinstance(body, dict) else None
    param = detail.get("param") if isinstance(detail, dict) else None
    return param[:100] if isinstance(param, str) and param else None


MAX_ANSWER_BYTES = 64 * 2**20
"""Largest answer body read; a longer one fails its request. A real answer (a long chain of thought,
its log-probabilities) is well under a megabyte; a broken or hostile server may send gigabytes."""


_TRANSFER_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class AnswerTooLarge(RequestFailed):
    """An answer body over :data:`MAX_ANSWER_BYTES`."""


def _post_capped(client: httpx.Client, url: str, body: dict[str, Any]) -> httpx.Response:
    """``client.post``, reading at most :data:`MAX_ANSWER_BYTES` of the answer (streamed, never held whole)."""
    with client.stream("POST", url, json=body) as response:
        size = 0
        chunks = []
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                raise AnswerTooLarge(f"answer larger than {MAX_ANSWER_BYTES // 2**20} MiB; not read")
            chunks.append(chunk)
    # The body is decoded already (gzip...): the headers that describe its transfer no longer apply.
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _TRANSFER_HEADERS]
    return httpx.Response(response.status_code, headers=headers, content=b"".join(chunks), request=response.request)


def post_json(
    client: httpx.Client,
    url: str,
    body: dict[str, Any],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
    on_retry: Callable[[], None] | None = None,
    what: str = "",
) -> dict[str, Any]:
    """The JSON object the server answered; raises :class:`RequestFailed` once retries are spent, naming the URL
    the attempts went to.

    Each retry is logged (INFO, one line: attempt, why, wait, ``what`` was asked and where) and reported to
    ``on_retry``. ``what`` names the request for the log (``question q7``): a failure a user reads names it.
    """
    asked = f"{what}, POST {shown_url(url)}" if what else f"POST {shown_url(url)}"
    rng = rng or random.Random()
    attempts = policy.max_retries + 1
    for attempt in range(attempts):
        retry_after: float | None = None
        try:
            response = _post_capped(client, url, body)
        except httpx.TransportError as exc:  # connect, read, timeout, protocol errors
            # A proxy's URL (HTTPS_PROXY=http://user:pw@proxy) may be in the text: its user part is masked.
            reason = _USER_PART.sub("***", f"{type(exc).__name__}: {exc}") if str(exc) else type(exc).__name__
        except httpx.HTTPError as exc:  # bad URL, too many redirects...: retrying will not help
            raise RequestFailed(_USER_PART.sub("***", f"{type(exc).__name__}: {exc}")) from exc
        else:
            if response.status_code < 400:
                try:
                    answer = response.json()
                except ValueError as exc:
                    raise RequestFailed(f"answer is not JSON: {response.text[:200]!r}") from exc
                except RecursionError:  # a body nested deeper than the parser's stack
                    raise RequestFailed(f"answer is nested too deep to read: {response.text[:60]!r}...") from None
                if not isinstance(answer, dict):
                    raise RequestFailed(f"answer is not a JSON object: {response.text[:200]!r}")
                return answer
            reason = error_text(response)
            if response.status_code not in RETRY_STATUS:
                raise RequestFailed(reason, status=response.status_code, param=error_param(response))
            retry_after = parse_retry_after(response.headers)
        if attempt + 1 < attempts:
            wait = policy.delay(attempt, retry_after, rng)
            log.info("retry %d/%d in %.1f s: %s (%s)", attempt + 1, policy.max_retries, wait, reason, asked)
            if on_retry is not None:
                on_retry()
            sleep(wait)
    raise RequestFailed(f"{reason} (gave up after {attempts} attempts at {asked})")
