"""A Qwen2.5-Math-PRM-style process reward model served by vLLM over HTTP (httpx, no torch).

On the GPU box: ``vllm serve Qwen/Qwen2.5-Math-PRM-7B --runner pooling`` (add ``--trust-remote-code`` if
the checkpoint's config asks for it); here: ``--prm Qwen/Qwen2.5-Math-PRM-7B --prm-backend openai
--prm-option base_url=http://HOST:8000/v1``, as the judge names its served model (``--judge-backend
openai -J base_url=...``). vLLM's own endpoints, at the server's root beside ``/v1``, do the work:

* ``POST /tokenize`` with the chat of :func:`~reasoning_metrics.models.prm_format.prm_messages`
  (``add_generation_prompt`` off): the token ids of the model card's input, rendered by the served
  model's own chat template and tokenizer, as the in-process adapters render them;
* ``POST /pooling`` with those ids (``task`` ``token_classify``): vLLM's ``Qwen2ForProcessRewardModel``
  pools with ``STEP`` at ``step_tag_id`` (151651, Qwen2.5's ``<extra_0>``, unless the server was started
  with ``--pooler-config '{"step_tag_id": N}'``) and answers the two labels' softmax at each separator.

Sending the ids (not the text) fixes the positions the answer's rows belong to, and
:func:`~reasoning_metrics.models.prm_format.positive_at_separators` reads them as the in-process
adapters do. A request cannot choose ``step_tag_id``, so the server is probed once when the model is
loaded: a prompt of separators only must come back with one two-label row per token; a server that
pools at another token answers no rows and is refused, with the flag that fixes it.

Requests run ``concurrency`` at a time, are retried on 429, 5xx and dropped connections
(:mod:`runners.backends._http`); a failure that retrying did not fix, or an answer that does not fit
the ids sent, is a :class:`PRMServerError` naming the URL (the score file keeps the chains already
written, and the same command resumes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import httpx

from kg.errors import InputError, SettingError
from reasoning_metrics.models.prm_format import PRM_SEPARATOR, prm_messages
from runners.backends._base_url import strip_endpoint
from runners.backends._http import RequestFailed, post_json
from runners.backends._pool import mapped
from runners.backends.openai import OpenAIBackend, environment_base_url

SERVE_HINT = "vllm serve MODEL --runner pooling"
"""How the server is started, as the errors say it."""
_VLLM_PATHS = ("/pooling", "/tokenize", "/v1")
"""Paths users paste after the server's root: cut, like an OpenAI endpoint pasted after ``/v1``."""
CONNECTION_OPTIONS = ("api_key", "concurrency", "timeout_s", "max_retries", "backoff_s", "max_backoff_s")
"""The OpenAI backend's options that a served PRM takes too (its requests go through that backend's client)."""


class PRMServerError(InputError):
    """The PRM server could not be used: unreachable, not serving the model, or an answer that does not fit."""


def server_root(base_url: str) -> str:
    """The server's root (``http://host:8000``) from what a user pastes: ``.../v1``, ``.../pooling``, the root."""
    url = strip_endpoint(base_url)
    for path in _VLLM_PATHS:
        url = url.removesuffix(path).rstrip("/")
    return url


class ServedPRM:
    """A process reward model behind vLLM's server: ``/tokenize`` then ``/pooling`` per solution."""

    def __init__(self, model: str, *, base_url: str | None = None, **connection: Any) -> None:
        """``model`` is the name the server knows the model by (``--served-model-name``, else its path).

        ``base_url`` defaults to ``$OPENAI_BASE_URL`` / ``$OPENAI_API_BASE``. ``connection`` takes the OpenAI
        backend's connection options (:data:`CONNECTION_OPTIONS`: ``api_key``, the server's ``--api-key``, else
        ``$OPENAI_API_KEY``; ``concurrency``, 8 solutions at a time; ``timeout_s``; ``max_retries``...), and the
        requests go through that backend's client. The server is asked at once (:meth:`check`), so a wrong
        URL, name or server fails here, before any chain is scored.
        """
        unknown = sorted(set(connection) - set(CONNECTION_OPTIONS))
        if unknown:
            raise TypeError(
                f"no option {', '.join(unknown)}; a served PRM takes base_url, {', '.join(CONNECTION_OPTIONS)}"
            )
        given = base_url or environment_base_url()
        if not given:
            raise SettingError(
                "prm_option",
                None,
                lambda name: (
                    f"no server named: give {name('prm_option', 'base_url=http://HOST:8000/v1')} "
                    f"(the server: {SERVE_HINT})"
                ),
            )
        self.model = model
        self.name = f"prm:openai:{model}"
        self.api = OpenAIBackend(model, base_url=given, probe=False, **connection)
        self.root = server_root(self.api.base_url)
        self.max_length = 0
        self.separator = -1
        self.check()

    def close(self) -> None:
        """Close the HTTP connections."""
        self.api.close()

    def check(self) -> None:
        """The server serves ``model`` (its ``max_model_len``), has the separator as one token, and pools at it."""
        self.max_length = self._served_length()
        ids = self._post("/tokenize", {"model": self.model, "prompt": PRM_SEPARATOR, "add_special_tokens": False})
        tokens = _token_ids(ids, self._url("/tokenize"))
        if len(tokens) != 1:
            raise self._error(f"{PRM_SEPARATOR} is not one token of the served tokenizer: not a Qwen2.5-Math-PRM model")
        self.separator = tokens[0]
        rows = self._pool([self.separator] * 2)
        if len(rows) != 2:
            raise self._error(
                f"the server pools at another token than the separator {PRM_SEPARATOR} (id {self.separator}): "
                f"{len(rows)} rows for a prompt of 2 separators; start it with "
                f"--pooler-config '{{\"step_tag_id\": {self.separator}}}'"
            )

    def step_probabilities(self, solutions: Sequence[tuple[str, Sequence[str]]]) -> list[list[float] | None]:
        """P(correct) per step of each solution (``None``: longer than the server's ``max_model_len``)."""
        # as the chat backend sends its requests: a stop does not wait for the ones the server still holds
        return mapped(lambda solution: self._score(*solution), solutions, self.api.concurrency)

    def token_ids(self, problem: str, steps: Sequence[str]) -> list[int]:
        """The model card's input as the server renders it: the chat through its own template and tokenizer."""
        body = {
            "model": self.model,
            "messages": prm_messages(problem, steps),
            "add_generation_prompt": False,
            "add_special_tokens": False,
        }
        return _token_ids(self._post("/tokenize", body), self._url("/tokenize"))

    def _score(self, problem: str, steps: Sequence[str]) -> list[float] | None:
        ids = self.token_ids(problem, steps)
        at = [i for i, token in enumerate(ids) if token == self.separator]
        if len(ids) > self.max_length or len(at) != len(steps):
            return None  # too long, or the separators did not survive the chat template: as the in-process adapters
        rows = self._pool(ids)
        if len(rows) == len(ids):
            rows = [rows[i] for i in at]
        elif len(rows) != len(at):
            raise self._error(
                f"/pooling answered {len(rows)} rows for {len(ids)} tokens with {len(at)} separators "
                f"({len(steps)} steps): neither one per token nor one per separator"
            )
        return [row[1] for row in rows]

    def _served_length(self) -> int:
        """``max_model_len`` of ``model`` from ``GET /v1/models``; an error naming the URL and the served names."""
        url = self._url("/v1/models")
        try:
            response = self.api.client.get(url)
        except httpx.HTTPError as exc:
            raise self._error(f"no server answers ({type(exc).__name__}: {exc}); start one with {SERVE_HINT}") from None
        if response.status_code >= 400:
            raise self._error(f"GET /v1/models answered HTTP {response.status_code}: not a vLLM server?")
        try:
            cards = response.json().get("data")
        except (ValueError, AttributeError, RecursionError):
            cards = None
        if not isinstance(cards, list) or not all(isinstance(card, dict) for card in cards):
            raise self._error(f"GET /v1/models answered no model list: {response.text[:200]!r}")
        card = next((c for c in cards if c.get("id") == self.model), None)
        if card is None:
            served = ", ".join(str(c.get("id")) for c in cards) or "none"
            raise self._error(f"the server does not serve {self.model!r} (it serves: {served})")
        length = card.get("max_model_len")
        return length if isinstance(length, int) and not isinstance(length, bool) and length > 0 else 2**31

    def _pool(self, ids: list[int]) -> list[list[float]]:
        """The two labels' probabilities per row of ``/pooling``'s answer to ``ids``, every value checked."""
        body = {"model": self.model, "input": ids, "task": "token_classify", "use_activation": True}
        answer = self._post("/pooling", body)
        data = answer.get("data")
        item = data[0] if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict) else None
        rows = item.get("data") if item is not None else None
        if not isinstance(rows, list) or not all(_two_probabilities(row) for row in rows):
            raise self._error(f"/pooling answered no rows of two probabilities: {str(answer)[:200]}")
        return [[float(p) for p in row] for row in rows]

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            return post_json(self.api.client, self._url(path), body, self.api.policy, sleep=self.api.sleep)
        except RequestFailed as exc:
            hint = f"; is it a vLLM server started with {SERVE_HINT}?" if exc.status in (404, 405) else ""
            raise self._error(f"{path}: {exc}{hint}") from None

    def _url(self, path: str) -> str:
        return self.root + path

    def _error(self, problem: str) -> PRMServerError:
        return PRMServerError(f"PRM server {self.root}: {problem}")


def _token_ids(answer: dict[str, Any], url: str) -> list[int]:
    tokens = answer.get("tokens")
    if not isinstance(tokens, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in tokens):
        raise PRMServerError(f"PRM server {url}: answered no token ids: {str(answer)[:200]}")
    return tokens


def _two_probabilities(row: object) -> bool:
    return (
        isinstance(row, list)
        and len(row) == 2
        and all(
            isinstance(p, int | float) and not isinstance(p, bool) and math.isfinite(p) and 0 <= p <= 1 for p in row
        )
    )
