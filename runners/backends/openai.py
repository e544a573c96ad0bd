"""Any OpenAI-compatible server: completions for text prompts, chat/completions for messages.

Requests run concurrently (``concurrency`` at a time, :mod:`runners.backends._pool`) under the
synchronous ``generate``, or ``generate_stream``, which hands each answer over as the server gives it
(a run writes it then); each is retried on 429, 5xx and connection errors (see
``_http.py``) and, if it still fails, comes back with ``error`` set. Scoring uses
``echo`` + ``logprobs`` on the completions endpoint (vLLM and most self-hosted servers
support it; OpenAI's hosted chat models do not, and those requests get ``error``).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import httpx

from kg.jsonl import describe
from runners.backends._base_url import probe_root, strip_endpoint
from runners.backends._http import RequestFailed, RetryPolicy, post_json, shown_url
from runners.backends._pool import Concurrent, mapped
from runners.backends._shared import estimate_tokens, token_count
from runners.backends.base import (
    Backend,
    GenerationRequest,
    GenerationResult,
    LoglikelihoodRequest,
    LoglikelihoodResult,
    SamplingParams,
)
from runners.stopping import Terminated, shielded

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DROPPABLE = frozenset(
    {"temperature", "top_p", "seed", "stop", "presence_penalty", "frequency_penalty", "top_k", "repetition_penalty"}
)
"""Sampling parameters left out of the requests once the server refuses them (its default then applies)."""
_PARAM_NAMED = re.compile(r"(?:[Uu]nsupported (?:parameter|value)|[Uu]nrecognized request argument supplied)\W+'?(\w+)")
"""The parameter an error's text names, for servers that give no ``error.param``."""


def _named_param(message: str) -> str | None:
    found = _PARAM_NAMED.search(message)
    return found.group(1) if found else None


def _malformed(exc: Exception) -> str:
    """One line for a request whose answer could not be read."""
    text = " ".join(str(exc).split())[:300]
    return f"malformed answer ({type(exc).__name__}: {text})" if text else f"malformed answer ({type(exc).__name__})"


class OpenAIBackend(Backend):
    """A model behind an OpenAI-compatible HTTP API."""

    name = "openai"
    is_chat = True
    """Chat messages unless told ``chat=False``: what a dry run assumes of it."""
    server_side_model = True
    """``--model`` is the name the server knows the model by."""
    protocol_role = "api"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        concurrency: int = 8,
        timeout_s: float = 120.0,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        max_backoff_s: float = 60.0,
        chat: bool = True,
        tokenizer: str | None = None,
        progress_every_s: float = 10.0,
        probe: bool = True,
    ) -> None:
        """``base_url`` defaults to ``$OPENAI_BASE_URL``, ``$OPENAI_API_BASE`` (:func:`environment_base_url`) or
        OpenAI's; ``api_key`` to ``$OPENAI_API_KEY``.

        An endpoint pasted after the API root (``.../v1/chat/completions``) is cut off; with ``probe``,
        :meth:`check` (asked by ``get_backend`` before the run) adds a missing ``/v1`` or refuses a
        ``base_url`` that serves no ``/models``.

        ``tokenizer`` (a hub id or folder) makes ``count_tokens`` exact; without it the
        server's ``/tokenize`` (vLLM) is asked, and failing that a safe estimate is used.
        ``progress_every_s``: seconds between the log lines that say how far a long batch is.
        """
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        if not (isinstance(timeout_s, int | float) and math.isfinite(timeout_s) and timeout_s > 0):
            raise ValueError(
                f"timeout_s must be a number of seconds above 0, got {timeout_s!r}"
            )  # 0: every request timed out
        self.model = model
        self.base_url = strip_endpoint(base_url or environment_base_url() or DEFAULT_BASE_URL)
        self.probe = probe
        self.concurrency = concurrency
        self.is_chat = chat
        self.policy = RetryPolicy(max_retries=max_retries, backoff_s=backoff_s, max_backoff_s=max_backoff_s)
        self.sleep: Callable[[float], None] = time.sleep
        self.progress_every_s = progress_every_s
        self.retries = 0
        """Requests sent again (429, 5xx, dropped connections) since the backend was made."""
        self._retry_lock = threading.Lock()
        self._renamed: dict[str, str] = {}
        self._dropped: set[str] = set()
        self.adapted: dict[str, str] = {}
        """Request parameters the server refused and how they are sent since (``summary.json``'s
        ``session.adapted``): ``max_tokens`` renamed ``max_completion_tokens``, ``temperature`` left out..."""
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        if key:
            warn_clear_text_key(self.base_url)
        self.client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        )
        self._tokenizer_name = tokenizer
        self._tokenizer: Any = None
        self._server_tokenize = True

    def check(self) -> None:
        """Probe ``GET <base_url>/models`` once: add a missing ``/v1``, or refuse a URL that is no API root."""
        if self.probe:
            self.base_url = probe_root(self.client, self.base_url)
            self.probe = False

    def close(self) -> None:
        """Close the HTTP connections."""
        self.client.close()

    def __enter__(self) -> OpenAIBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _post(self, path: str, body: dict[str, Any], what: str = "") -> dict[str, Any]:
        """The answer to ``body``, sent as the server takes it: a parameter it refused once is renamed or left out
        (:meth:`_learn`) in this request and every later one. ``what`` names the request in retries' log lines."""
        while True:
            sent = self._adapted(body)
            try:
                return post_json(
                    self.client,
                    self.base_url + path,
                    sent,
                    self.policy,
                    sleep=self.sleep,
                    on_retry=self._count,
                    what=what,
                )
            except RequestFailed as exc:
                if not self._learn(exc, sent):
                    raise

    def _adapted(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._retry_lock:
            renamed, dropped = dict(self._renamed), set(self._dropped)
        return {renamed.get(key, key): value for key, value in body.items() if key not in dropped}

    def _learn(self, refusal: RequestFailed, sent: dict[str, Any]) -> bool:
        """Whether a 400 naming a parameter of ``sent`` taught how to send it (then the request is sent again).

        OpenAI's reasoning models (o1, o3, gpt-5) refuse ``max_tokens`` ("use 'max_completion_tokens'") and any
        ``temperature`` or ``top_p`` but the default; the first refusal of each is remembered, logged once, and
        reported in ``summary.json`` (:attr:`adapted`). Parameters the answer's meaning depends on (``n`` over
        1, ``logprobs``, ``echo``) are never dropped: their refusal fails the request.
        """
        param = refusal.param or _named_param(str(refusal))
        if refusal.status != 400 or param is None or param not in sent:
            return False
        with self._retry_lock:
            if param == "max_tokens" and "max_completion_tokens" in str(refusal):
                self._renamed["max_tokens"] = "max_completion_tokens"
                note = "sent as max_completion_tokens: the server refused max_tokens"
            elif param in DROPPABLE or (param == "n" and sent.get("n") == 1):
                self._dropped.add(param)
                note = f"not sent: the server refused it ({str(refusal)[:160]}); the server's default applies"
            else:
                return False
            first = param not in self.adapted
            self.adapted[param] = note
        if first:
            log.warning("%s: %s %s", shown_url(self.base_url), param, note)
        return True

    def _count(self) -> None:
        with self._retry_lock:  # requests run on a thread pool
            self.retries += 1

    def _map(self, work: Callable[[T], R], items: Sequence[T]) -> list[R]:
        return mapped(work, items, self.concurrency)

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """Send every request (``concurrency`` at a time); failures come back with ``error`` set.

        A batch that takes long logs how many of its requests are answered, at most every
        ``progress_every_s`` seconds (INFO), so a log shows it moving.
        """
        ticker = _Ticker(len(requests), self.progress_every_s)

        def one(request: GenerationRequest) -> GenerationResult:
            result = self._generate_one(request)
            ticker.tick()
            return result

        return self._map(one, requests)

    def generate_stream(self, requests: Sequence[GenerationRequest]) -> Iterator[GenerationResult]:
        """The answers of :meth:`generate`, each as soon as the server has given it (each with its request's id).

        A run writes each at once (the batch's others need not be back), so Ctrl-C or SIGTERM loses only the
        requests in flight: a signal that comes while an answer is written is raised here once it is, and the
        answers already back are handed over before it goes on. Nothing waits for the requests in flight
        (:mod:`runners.backends._pool`).
        """
        ticker = _Ticker(len(requests), self.progress_every_s)
        with Concurrent(self._generate_one, requests, self.concurrency) as sent:
            try:
                for _, result in sent:
                    ticker.tick()
                    with shielded():  # the hand-over and the caller's write of it: a signal waits for both
                        yield result
            except (KeyboardInterrupt, Terminated):
                sent.stop()
                with shielded():
                    for _, result in sent.ready():
                        yield result
                raise

    def _generate_one(self, request: GenerationRequest) -> GenerationResult:
        chat = not isinstance(request.prompt, str)
        body: dict[str, Any] = {"model": self.model, **_sampling_body(request.params, chat)}
        body["messages" if chat else "prompt"] = request.prompt
        start = time.perf_counter()
        try:
            answer = self._post("/chat/completions" if chat else "/completions", body, f"request {request.id}")
            result = _parse_generation(request.id, answer, chat)
        except RequestFailed as exc:
            return GenerationResult(request.id, error=str(exc), latency_s=time.perf_counter() - start)
        except Exception as exc:  # any answer that breaks the protocol must not sink the batch: this request fails
            return GenerationResult(request.id, error=_malformed(exc), latency_s=time.perf_counter() - start)
        result.latency_s = time.perf_counter() - start
        return result

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        """Score continuations with ``echo`` + ``logprobs`` on the completions endpoint."""
        pairs = [(request, which) for request in requests for which in range(len(request.continuations))]
        outcomes_flat = iter(self._map(self._score_one, pairs))
        results = []
        for request in requests:
            outcomes = [next(outcomes_flat) for _ in request.continuations]
            failure = next((o for o in outcomes if isinstance(o, str)), None)
            if failure is not None:
                results.append(LoglikelihoodResult(request.id, error=failure))
                continue
            done = [o for o in outcomes if not isinstance(o, str)]
            results.append(
                LoglikelihoodResult(request.id, logprobs=[s for s, _ in done], token_counts=[n for _, n in done])
            )
        return results

    def _score_one(self, pair: tuple[LoglikelihoodRequest, int]) -> tuple[float, int] | str:
        """``(sum, tokens)`` for one continuation, or the error text."""
        request, which = pair
        if not isinstance(request.prompt, str):
            return "chat prompts cannot be scored over the OpenAI API (only completions echo log-probabilities)"
        prompt, continuation = request.prompt, request.continuations[which]
        body = {
            "model": self.model,
            "prompt": prompt + continuation,
            "echo": True,
            "logprobs": 1,
            "max_tokens": 1,
            "temperature": 0.0,
        }
        try:
            answer = self._post("/completions", body, f"request {request.id}, option {which}")
            return _sum_echoed(answer, len(prompt), len(prompt) + len(continuation))
        except RequestFailed as exc:
            return str(exc)
        except Exception as exc:  # as in _generate_one: this request fails, the batch goes on
            return _malformed(exc)

    def count_tokens(self, text: str) -> int:
        """Exact with a local tokenizer or the server's ``/tokenize``; else an estimate that errs long."""
        if self._tokenizer_name is not None:
            if self._tokenizer is None:
                from transformers import AutoTokenizer

                self._tokenizer = AutoTokenizer.from_pretrained(self._tokenizer_name)
            return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])
        if self._server_tokenize:
            root = self.base_url.removesuffix("/v1")
            try:
                answer = post_json(
                    self.client,
                    root + "/tokenize",
                    {"model": self.model, "prompt": text, "add_special_tokens": False},
                    RetryPolicy(max_retries=0),
                )
                count = token_count(answer.get("count"))
                if count is None:
                    raise RequestFailed(f"its count is not a token count: {_clip(answer.get('count'))}")
                return count
            except (RequestFailed, KeyError, TypeError, ValueError) as exc:
                log.warning("%s has no usable /tokenize (%s); estimating token counts", shown_url(root), exc)
                self._server_tokenize = False
        return estimate_tokens(text)


BASE_URL_VARIABLES = ("OPENAI_BASE_URL", "OPENAI_API_BASE")
"""Where users set a server's address: the openai package's name since 1.0, and the one before (still in
lm-eval's, LangChain's and many servers' instructions)."""


def environment_base_url() -> str | None:
    """The base URL the environment sets (:data:`BASE_URL_VARIABLES`, the first set wins), else ``None``.

    When both are set and differ, ``OPENAI_BASE_URL`` is used and the other named in a warning: a base
    set in either is never passed over for OpenAI's public host.
    """
    found = {name: os.environ[name].strip() for name in BASE_URL_VARIABLES if os.environ.get(name, "").strip()}
    if not found:
        log.info("no base_url, %s nor %s: requests go to %s", *BASE_URL_VARIABLES, DEFAULT_BASE_URL)
        return None
    chosen, value = next(iter(found.items()))
    for name, other in found.items():
        if strip_endpoint(other) != strip_endpoint(value):
            log.warning("%s=%s and %s=%s differ: using %s", chosen, shown_url(value), name, shown_url(other), chosen)
    return value


class _Ticker:
    """Counts a batch's finished requests (from any thread) and logs the count now and then."""

    def __init__(self, total: int, every_s: float) -> None:
        self.total, self.every_s, self.done = total, every_s, 0
        self.start = self.last = time.perf_counter()
        self.lock = threading.Lock()

    def tick(self) -> None:
        with self.lock:
            self.done += 1
            now = time.perf_counter()
            if now - self.last < self.every_s or self.done == self.total:  # the batch's end is logged by the run
                return
            self.last = now
            done, rate = self.done, self.done / (now - self.start)
        log.info("%d/%d requests of this batch answered (%.2f/s)", done, self.total, rate)


_WARNED: set[str] = set()


def warn_clear_text_key(base_url: str) -> None:
    """Warn, once per host, that the API key goes unencrypted to ``base_url``'s host.

    Plain ``http://`` is fine on this machine (127.0.0.0/8, ::1, localhost), where a local
    server usually runs; anywhere else anyone on the way can read the key.
    """
    url = httpx.URL(base_url)
    host = url.host
    if url.scheme != "http" or _is_loopback(host) or host in _WARNED:
        return
    _WARNED.add(host)
    log.warning("the API key is sent unencrypted to %s over http://; use https:// unless the network is trusted", host)


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _sampling_body(params: SamplingParams, chat: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "max_tokens": params.max_tokens,
        "temperature": params.temperature,
        "top_p": params.top_p,
        "n": params.n,
    }
    if params.seed is not None:
        body["seed"] = params.seed
    if params.stop:
        body["stop"] = list(params.stop)
    if params.logprobs is not None:
        body.update({"logprobs": True, "top_logprobs": params.logprobs} if chat else {"logprobs": params.logprobs})
    for key in ("top_k", "presence_penalty", "frequency_penalty", "repetition_penalty"):  # sent only when asked:
        if getattr(params, key) is not None:  # OpenAI's own API refuses top_k and repetition_penalty
            body[key] = getattr(params, key)
    if params.extra_body is not None:
        body.update(json.loads(params.extra_body))
    return body


def _parse_generation(request_id: str, answer: dict[str, Any], chat: bool) -> GenerationResult:
    """A completions or chat/completions answer as a :class:`GenerationResult`; every field is type-checked.

    A field the answer cannot do without (the choices, their texts) of the wrong type fails this
    request with :class:`RequestFailed` naming the field; a token count that is not a count is
    dropped (``None``) rather than recorded as a plausible wrong number.
    """
    choices = answer.get("choices")
    if not isinstance(choices, list) or not all(isinstance(choice, dict) for choice in choices):
        raise RequestFailed(f"answer field choices is not a list of objects: {_clip(answer)}")
    choices = sorted(choices, key=lambda choice: _index(choice.get("index", 0)))
    if chat:
        messages = [choice.get("message") for choice in choices]
        if not all(isinstance(message, dict) for message in messages):
            raise RequestFailed(f"answer field choices[].message is not an object: {_clip(answer)}")
        texts = [_content(message.get("content"), "choices[].message.content") for message in messages]
        reasoning = _reasoning(messages[0]) if messages else None
    else:
        texts = [_content(choice.get("text"), "choices[].text") for choice in choices]
        reasoning = None
    reasons = [_finish_reason(choice.get("finish_reason")) for choice in choices]
    usage = answer.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    result = GenerationResult(
        request_id,
        texts=texts,
        finish_reasons=reasons,
        prompt_tokens=token_count(usage.get("prompt_tokens")),
        completion_tokens=token_count(usage.get("completion_tokens")),
        reasoning=reasoning,
    )
    logprobs = choices[0].get("logprobs") if choices else None
    if logprobs:
        if not isinstance(logprobs, dict):
            raise RequestFailed(f"answer field choices[0].logprobs is not an object: {_clip(logprobs)}")
        result.top_logprobs = _chat_top(logprobs) if chat else _completion_top(logprobs)
    return result


def _clip(value: object) -> str:
    return repr(value)[:200]


def _index(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestFailed(f"answer field choices[].index is not an integer: {_clip(value)}")
    return value


def _content(value: object, field: str) -> str:
    """A text field: a string, ``null`` (empty), or a list of content parts (strings or ``{"text": ...}``) joined."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # content parts, as some gateways send them
        parts = [
            part if isinstance(part, str) else part.get("text") if isinstance(part, dict) else None for part in value
        ]
        if all(isinstance(part, str) for part in parts):
            return "".join(part for part in parts if isinstance(part, str))
        raise RequestFailed(f"answer field {field} is a list whose parts are not texts: {_clip(value)}")
    raise RequestFailed(f"answer field {field} is {describe(value)}, not a text")


def _finish_reason(value: object) -> str:
    if value is None or isinstance(value, str):
        return str(value)
    raise RequestFailed(f"answer field choices[].finish_reason is {describe(value)}, not a text")


def _logprob(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RequestFailed(f"answer holds a log-probability that is not a finite number: {_clip(value)}")
    return float(value)


def _completion_top(logprobs: dict[str, Any]) -> list[dict[str, float]]:
    table = []
    for step in logprobs.get("top_logprobs") or []:
        if not isinstance(step, dict):
            raise RequestFailed(f"answer field logprobs.top_logprobs[] is not an object: {_clip(step)}")
        table.append({str(token): _logprob(value) for token, value in step.items()})
    return table


def _reasoning(message: dict[str, Any]) -> str | None:
    """The chain of thought beside the answer: ``reasoning_content`` (vLLM, DeepSeek), else ``reasoning``."""
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _chat_top(logprobs: dict[str, Any]) -> list[dict[str, float]]:
    table = []
    steps = logprobs.get("content") or []
    if not isinstance(steps, list):
        raise RequestFailed(f"answer field logprobs.content is not a list: {_clip(steps)}")
    for step in steps:
        if not isinstance(step, dict) or not isinstance(step.get("token"), str):
            raise RequestFailed(f"answer field logprobs.content[] has no token text: {_clip(step)}")
        tops = step.get("top_logprobs") or []
        if not isinstance(tops, list) or not all(isinstance(t, dict) and isinstance(t.get("token"), str) for t in tops):
            raise RequestFailed(f"answer field logprobs.content[].top_logprobs is malformed: {_clip(tops)}")
        entry = {top["token"]: _logprob(top.get("logprob")) for top in tops}
        entry.setdefault(step["token"], _logprob(step.get("logprob")))
        table.append(entry)
    return table


def _sum_echoed(answer: dict[str, Any], start: int, end: int) -> tuple[float, int]:
    """Sum the echoed log-probabilities of the tokens starting within ``[start, end)`` characters."""
    try:
        logprobs = answer["choices"][0]["logprobs"]
        offsets, values = logprobs["text_offset"], logprobs["token_logprobs"]
    except (KeyError, IndexError, TypeError) as exc:
        raise RequestFailed("the server returned no echoed log-probabilities; it cannot score continuations") from exc
    total, count = 0.0, 0
    for offset, value in zip(offsets, values, strict=False):
        if start <= offset < end:
            if value is None:
                raise RequestFailed("the continuation's first token has no log-probability (empty prompt?)")
            total += _logprob(value)
            count += 1
    return total, count
