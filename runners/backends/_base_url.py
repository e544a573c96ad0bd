"""An OpenAI-compatible ``base_url`` as users write it, turned into the API root, or refused before the run.

Servers document their endpoint (``http://host:8000/v1/chat/completions``) and users paste it, or they
paste the host alone (``http://host:8000``); either way every request would be answered 404. The
endpoint suffix is cut here without asking anyone; a root that does not answer ``GET <root>/models``
(which vLLM, llama.cpp, Ollama, SGLang and OpenAI all serve) is tried once more with ``/v1`` added,
and refused with one line when neither answers.
"""

from __future__ import annotations

import logging
import re

import httpx

from kg.errors import InputError
from runners.backends._http import shown_url

log = logging.getLogger(__name__)
ENDPOINTS = ("/chat/completions", "/completions", "/models", "/embeddings")
"""Paths under the API root that users paste as if they were the root."""
_VERSIONED = re.compile(r"/v\d+(?:beta|alpha)?\d*$")


def strip_endpoint(base_url: str) -> str:
    """``base_url`` without a trailing slash and without an endpoint path pasted after the API root."""
    url = base_url.strip().rstrip("/")
    for endpoint in ENDPOINTS:
        if url.endswith(endpoint):
            root = url[: -len(endpoint)].rstrip("/")
            log.warning(
                "base_url %s names the endpoint %s: using the API root %s", shown_url(url), endpoint, shown_url(root)
            )
            return root
    return url


def _models_status(client: httpx.Client, root: str) -> int | None:
    """The HTTP status of ``GET <root>/models``, None when the server cannot be reached."""
    try:
        return client.get(root + "/models").status_code
    except httpx.HTTPError:
        return None


def probe_root(client: httpx.Client, root: str) -> str:
    """The API root to use: ``root`` when it serves ``/models``, else ``root/v1`` when that does.

    Only a 404 (or 405) changes anything: an unreachable server, a refused key or a server error is
    left to the requests themselves, which retry and record it. Raises :class:`InputError` when
    neither ``root/models`` nor ``root/v1/models`` exists.
    """
    status = _models_status(client, root)
    if status not in (404, 405):
        return root
    tried = [f"{shown_url(root)}/models (HTTP {status})"]
    if not _VERSIONED.search(root):
        with_version = root + "/v1"
        second = _models_status(client, with_version)
        if second is not None and second < 400:
            log.warning("base_url %s has no /models; %s has: using it", shown_url(root), shown_url(with_version))
            return with_version
        shown = shown_url(with_version)
        tried.append(f"{shown}/models (HTTP {second})" if second is not None else f"{shown}/models")
    raise InputError(
        f"base_url {shown_url(root)} is not the root of an OpenAI-compatible API: nothing at {' nor '.join(tried)}; "
        "give the backend option base_url the URL that ends in /v1, e.g. http://127.0.0.1:8000/v1 "
        "(the backend option probe=false skips this check for a server without /models)"
    )
