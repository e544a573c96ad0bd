"""The openai backend against a real HTTP server on 127.0.0.1 serving the tiny model."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from runners.backends._http import RequestFailed, RetryPolicy, parse_retry_after, post_json
from runners.backends.base import GenerationRequest, LoglikelihoodRequest, SamplingParams
from runners.backends.openai import OpenAIBackend
from runners.testing.openai_server import Faults, OpenAIServer
from tests.runners.backends.checks import assert_same_loglikelihoods, free_port

pytestmark = pytest.mark.real_model

GREEDY = SamplingParams(max_tokens=10)
MESSAGES = [{"role": "user", "content": "一次函数是什么？"}]


class SleepLog:
    """Records the delays asked for instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def serve(tiny_backend: Any) -> Iterator[Any]:
    servers: list[OpenAIServer] = []
    clients: list[OpenAIBackend] = []

    def start(faults: Faults | None = None, **options: Any) -> tuple[OpenAIServer, OpenAIBackend]:
        sleep = options.pop("sleep", None)
        server = OpenAIServer(tiny_backend, faults or Faults()).start()
        client = OpenAIBackend("tiny", base_url=server.base_url, api_key="test", backoff_s=0.01, **options)
        if sleep is not None:
            client.sleep = sleep
        servers.append(server)
        clients.append(client)
        return server, client

    yield start
    for client in clients:
        client.close()
    for server in servers:
        server.stop()


@pytest.mark.slow
def test_text_and_chat_prompts_match_the_model_run_locally(serve: Any, tiny_backend: Any) -> None:
    _, client = serve()
    requests = [
        GenerationRequest("text", "Question: what is 3 + 4? Answer:", GREEDY),
        GenerationRequest("chat", MESSAGES, GREEDY),
    ]
    remote = client.generate(requests)
    local = tiny_backend.generate(requests)
    assert [r.id for r in remote] == ["text", "chat"]
    assert [r.texts for r in remote] == [r.texts for r in local]
    assert [r.error for r in remote] == [None, None]
    assert [r.prompt_tokens for r in remote] == [r.prompt_tokens for r in local]
    assert [r.completion_tokens for r in remote] == [r.completion_tokens for r in local]
    assert all(r.latency_s is not None and r.latency_s > 0 for r in remote)


def test_sampling_parameters_travel(serve: Any) -> None:
    _, client = serve()
    params = SamplingParams(temperature=1.0, n=3, max_tokens=6, seed=5, logprobs=2)
    [first, chat] = client.generate(
        [GenerationRequest("a", "下列说法", params), GenerationRequest("b", MESSAGES, params)]
    )
    [again] = client.generate([GenerationRequest("a", "下列说法", params)])
    assert len(first.texts) == 3 and first.texts == again.texts
    assert first.top_logprobs and all(2 <= len(step) <= 3 for step in first.top_logprobs)
    assert chat.top_logprobs and all(2 <= len(step) <= 3 for step in chat.top_logprobs)


@pytest.mark.slow
def test_concurrency_is_used_and_capped(serve: Any) -> None:
    # The server answers only once 4 requests are in flight together (an event, not a race against a delay, #37):
    # 8 requests in two full rounds, and never more than the 4 allowed at once.
    requests = [GenerationRequest(f"r{i}", f"A{i}", SamplingParams(max_tokens=2)) for i in range(8)]
    wide_server, wide = serve(Faults(gather=4), concurrency=4)
    assert all(r.error is None for r in wide.generate(requests))
    assert wide_server.max_in_flight == 4
    # One at a time: each answer takes the model's time and 50 ms more, so a request sent early would overlap it.
    narrow_server, narrow = serve(Faults(delay_s=0.05), concurrency=1)
    assert all(r.error is None for r in narrow.generate(requests[:3]))
    assert narrow_server.max_in_flight == 1


@pytest.mark.slow
def test_flaky_server_retries_through_429_500_and_dropped_connections(serve: Any) -> None:
    sleeps = SleepLog()
    server, client = serve(Faults(flaky=3, retry_after="2"), sleep=sleeps)
    requests = [GenerationRequest(f"r{i}", f"flaky {i}", SamplingParams(max_tokens=3)) for i in range(3)]
    results = client.generate(requests)
    assert [r.error for r in results] == [None, None, None]
    assert all(r.texts for r in results)
    assert sorted(server.attempts.values()) == [4, 4, 4]
    # Per request: the 429's Retry-After (2 s) is honoured, then two computed backoffs.
    assert sorted(sleeps.delays).count(2.0) == 3
    computed = sorted(d for d in sleeps.delays if d != 2.0)
    assert len(computed) == 6 and all(0.005 <= d <= 0.04 for d in computed)


@pytest.mark.slow
def test_a_request_that_always_fails_is_returned_with_its_error(serve: Any) -> None:
    server, client = serve(Faults(fail_marker="BROKEN"), max_retries=2)
    requests = [
        GenerationRequest("ok1", "A", SamplingParams(max_tokens=2)),
        GenerationRequest("bad", "BROKEN prompt", SamplingParams(max_tokens=2)),
        GenerationRequest("ok2", MESSAGES, SamplingParams(max_tokens=2)),
    ]
    results = client.generate(requests)
    assert [r.id for r in results] == ["ok1", "bad", "ok2"]
    assert results[0].error is None and results[2].error is None
    bad = results[1]
    assert bad.texts == [] and bad.error is not None
    assert "HTTP 500" in bad.error and "injected failure" in bad.error and "3 attempts" in bad.error
    assert server.attempts['"BROKEN prompt"'] == 3


def test_client_errors_are_not_retried(serve: Any) -> None:
    server, client = serve(Faults(reject_marker="NOPE"))
    [result] = client.generate([GenerationRequest("x", "NOPE", SamplingParams(max_tokens=2))])
    assert result.error is not None and result.error.startswith("HTTP 400")
    assert server.attempts['"NOPE"'] == 1


def test_connection_refused_is_retried_then_recorded() -> None:
    sleeps = SleepLog()
    client = OpenAIBackend("m", base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=2, backoff_s=0.01)
    client.sleep = sleeps
    with client:
        [result] = client.generate([GenerationRequest("x", "A", SamplingParams(max_tokens=2))])
    assert result.error is not None and "ConnectError" in result.error and "3 attempts" in result.error
    assert len(sleeps.delays) == 2


def test_loglikelihood_through_echo_matches_the_local_model(serve: Any, tiny_backend: Any) -> None:
    _, client = serve()
    requests = [
        LoglikelihoodRequest("q1", "Question: what is 3 + 4? Answer:", (" 7", " A", " Water boils")),
        LoglikelihoodRequest("q2", "The quick brown", (" fox",)),
    ]
    remote = client.loglikelihood(requests)
    local = tiny_backend.loglikelihood(requests)
    assert_same_loglikelihoods(remote, local, 1e-4)


def test_scoring_failures_are_recorded(serve: Any) -> None:
    _, client = serve(Faults(no_echo=True))
    [text, chat] = client.loglikelihood(
        [LoglikelihoodRequest("t", "1+1=", ("2",)), LoglikelihoodRequest("c", MESSAGES, ("2",))]
    )
    assert text.error is not None and "HTTP 400" in text.error and "echo" in text.error
    assert chat.error is not None and "chat prompts cannot be scored" in chat.error


def test_count_tokens_asks_the_server_then_falls_back(serve: Any, tiny_backend: Any) -> None:
    server, client = serve()
    text = "一次函数的图像 hello"
    assert client.count_tokens(text) == tiny_backend.count_tokens(text)
    blind = OpenAIBackend("tiny", base_url=server.base_url + "/nowhere")
    with blind:
        assert blind.count_tokens(text) == -(-len(text.encode()) // 3)
        assert blind._server_tokenize is False


def test_api_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    with OpenAIBackend("m", base_url="http://127.0.0.1:1/v1") as client:
        assert client.client.headers["Authorization"] == "Bearer sk-env"
    with OpenAIBackend("m", base_url="http://127.0.0.1:1/v1", api_key="sk-opt") as client:
        assert client.client.headers["Authorization"] == "Bearer sk-opt"


def test_retry_after_forms() -> None:
    assert parse_retry_after(httpx.Headers({"Retry-After": "3"})) == 3.0
    assert parse_retry_after(httpx.Headers({"retry-after-ms": "250"})) == 0.25
    assert parse_retry_after(httpx.Headers({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0.0
    assert parse_retry_after(httpx.Headers({"Retry-After": "soon"})) is None
    assert parse_retry_after(httpx.Headers({})) is None


def test_backoff_doubles_with_jitter_and_is_capped() -> None:
    policy = RetryPolicy(backoff_s=1.0, max_backoff_s=5.0)
    rng = random.Random(0)
    delays = [policy.delay(k, None, rng) for k in range(5)]
    assert [0.5 <= d / min(2**k, 5.0) <= 1.0 for k, d in enumerate(delays)] == [True] * 5
    assert policy.delay(0, 1000.0, rng) == policy.max_retry_after_s


def test_post_json_rejects_non_json_answers() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>proxy error</html>")

    with (
        httpx.Client(transport=httpx.MockTransport(handler)) as client,
        pytest.raises(RequestFailed, match="not JSON"),
    ):
        post_json(client, "http://x/v1/completions", {}, RetryPolicy(max_retries=0))


def test_a_malformed_answer_is_recorded_not_raised() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        choice: dict[str, Any] = {"index": 0, "text": "A"}
        if json.loads(request.content).get("logprobs"):
            choice["logprobs"] = {"top_logprobs": 7}  # not a list
        return httpx.Response(200, json={"choices": [choice]})

    with OpenAIBackend("m", base_url="http://x/v1") as client:
        client.client = httpx.Client(transport=httpx.MockTransport(handler))
        ok, broken = client.generate(
            [
                GenerationRequest("ok", "p", SamplingParams(max_tokens=1)),
                GenerationRequest("broken", "p", SamplingParams(max_tokens=1, logprobs=1)),
            ]
        )
    assert ok.texts == ["A"] and ok.error is None
    assert broken.error is not None and broken.error.startswith("malformed answer")


@pytest.mark.parametrize(
    ("base_url", "warned"),
    [
        ("http://10.1.2.3:8000/v1", "10.1.2.3"),
        ("http://models.example.org/v1", "models.example.org"),
        ("https://models.example.org/v1", None),
        ("http://127.0.0.1:8000/v1", None),
        ("http://127.8.9.10/v1", None),
        ("http://localhost:8000/v1", None),
        ("http://[::1]:8000/v1", None),
    ],
)
def test_a_key_sent_in_clear_text_to_another_host_is_warned_about_once(
    base_url: str, warned: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="runners.backends.openai")
    for _ in range(2):
        OpenAIBackend("m", base_url=base_url, api_key="sk-test").close()
    OpenAIBackend("m", base_url=base_url, api_key="").close()  # no key, nothing to leak
    messages = [r.getMessage() for r in caplog.records]
    if warned is None:
        assert messages == []
    else:
        assert len(messages) == 1 and warned in messages[0] and "http://" in messages[0]
        assert "sk-test" not in messages[0]
