"""A failed request's error names the URL it went to (records.jsonl, run's closing warning, the report's page), and
a log line names the base URL: a key written in the URL (``https://user:sk-...@host``, ``?key=sk-...``) is masked."""

from __future__ import annotations

import logging

import httpx
import pytest

from runners.backends._http import RequestFailed, RetryPolicy, post_json, shown_url
from runners.backends.base import GenerationRequest, SamplingParams
from runners.backends.openai import OpenAIBackend
from tests.runners.backends.checks import free_port

SECRET = "sk-秘密0123456789"


def test_shown_url_masks_the_user_part_and_the_query_values() -> None:
    assert shown_url(f"https://me:{SECRET}@api.example.cn/v1?key={SECRET}&x") == (
        "https://***@api.example.cn/v1?key=***&***"
    )
    assert shown_url(f"http://{SECRET}@127.0.0.1:8000/v1") == "http://***@127.0.0.1:8000/v1"
    assert shown_url("http://127.0.0.1:8000/v1/completions") == "http://127.0.0.1:8000/v1/completions"


def test_a_request_given_up_names_its_url_without_the_key(caplog: pytest.LogCaptureFixture) -> None:
    client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(500, text="服务器错误")))
    url = f"http://user:{SECRET}@127.0.0.1:8000/v1/completions?api_key={SECRET}"
    with caplog.at_level(logging.INFO), pytest.raises(RequestFailed) as failed:
        post_json(client, url, {}, RetryPolicy(max_retries=1, backoff_s=0), sleep=lambda _: None, what="request q1")
    assert "request q1, POST http://***@127.0.0.1:8000/v1/completions?api_key=***" in str(failed.value)
    assert SECRET not in str(failed.value) and SECRET not in caplog.text
    assert "retry 1/1" in caplog.text


def test_a_failed_record_and_the_base_url_warnings_keep_the_key_out(caplog: pytest.LogCaptureFixture) -> None:
    base = f"http://me:{SECRET}@127.0.0.1:{free_port()}/v1/chat/completions"
    with caplog.at_level(logging.INFO), OpenAIBackend("m", base_url=base, max_retries=1, backoff_s=0.0) as client:
        client.sleep = lambda _: None
        [result] = client.generate([GenerationRequest("q1", "一加一等于几？", SamplingParams(max_tokens=2))])
    assert result.error is not None and "ConnectError" in result.error and "POST http://***@127.0.0.1:" in result.error
    assert SECRET not in result.error and SECRET not in caplog.text


def test_a_transport_error_naming_a_proxy_keeps_its_password_out() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ProxyError(f"cannot reach the proxy http://me:{SECRET}@proxy.example.cn:3128")

    client = httpx.Client(transport=httpx.MockTransport(refuse))
    with pytest.raises(RequestFailed) as failed:
        post_json(client, "http://127.0.0.1:8000/v1/completions", {}, RetryPolicy(max_retries=0))
    assert "ProxyError: cannot reach the proxy http://***@proxy.example.cn:3128" in str(failed.value)
    assert SECRET not in str(failed.value)
