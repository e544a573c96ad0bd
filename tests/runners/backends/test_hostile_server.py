"""A hostile OpenAI-compatible server on 127.0.0.1 against the real ``k12eval run`` (#28 item 1, Deliver 2).

The server is a real HTTP server; each question's answer is chosen by the number in its prompt
("第 7 题"), so one malformed answer can sit among good ones. The invariant: the run ends with a
result (every question recorded, the malformed answers as failed requests, the good ones kept) or
one located ``error:`` line; never a traceback; the run folder reads back; a resume asks nothing
again and does not repeat the crash. Loops are bounded (20 questions, 25 fuzz examples).
"""

from __future__ import annotations

import json
import re
import tempfile
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from k12eval.cli import app
from runners.store import RunStore
from tests._runs import question, write_bank

N = 20
QUESTIONS = [
    question(f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题：下列函数中是一次函数的是") for i in range(N)
]
GOOD = "正确答案是：A"


def chat_answer(content: Any, usage: Any = None, **message: Any) -> bytes:
    """A chat/completions answer whose ``message.content`` is ``content`` (any JSON value)."""
    body: dict[str, Any] = {
        "object": "chat.completion",
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content, **message}}
        ],
        "usage": usage if usage is not None else {"prompt_tokens": 12, "completion_tokens": 5},
    }
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def _raw_usage(tokens: str) -> bytes:
    """An answer whose ``usage.prompt_tokens`` is the raw JSON text ``tokens`` (NaN is not valid JSON)."""
    return chat_answer(GOOD).replace(b'"prompt_tokens": 12', b'"prompt_tokens": ' + tokens.encode())


# Each malformed answer a gateway or a broken server has been seen to send (the issue's findings first).
HOSTILE: dict[str, bytes] = {
    "content an int": chat_answer(42),
    "content a dict": chat_answer({"text": "A"}),
    "content a bool": chat_answer(True),
    "content a list of numbers": chat_answer([1, 2]),
    "100k-deep body": b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "choices not a list": json.dumps({"choices": {"0": GOOD}}).encode(),
    "choice a string": json.dumps({"choices": [GOOD]}).encode(),
    "message a list": json.dumps({"choices": [{"index": 0, "message": [GOOD]}]}).encode(),
    "index a string": json.dumps(
        {"choices": [{"index": "x", "message": {"content": GOOD}}, {"index": 1, "message": {"content": GOOD}}]}
    ).encode(),
    "finish_reason a dict": json.dumps(
        {"choices": [{"index": 0, "finish_reason": {"x": 1}, "message": {"content": GOOD}}]}
    ).encode(),
    "logprobs garbage": json.dumps(
        {"choices": [{"index": 0, "message": {"content": GOOD}, "logprobs": {"content": [{"token": 1}]}}]}
    ).encode(),
    "not JSON": b"{choices",
    "JSON array": b"[1, 2, 3]",
    "empty body": b"",
    "invalid UTF-8": b'{"choices": [{"index": 0, "message": {"content": "\xff\xfe"}}]}',
    "huge integer": b'{"choices": [{"index": ' + b"9" * 5000 + b', "message": {"content": "A"}}]}',
}
# Answers with a usable text: kept, whatever their token counts say.
USABLE: dict[str, tuple[bytes, str]] = {
    "prompt_tokens NaN": (_raw_usage("NaN"), GOOD),
    "prompt_tokens a word": (_raw_usage('"many"'), GOOD),
    "prompt_tokens negative fraction": (_raw_usage("-5.5"), GOOD),
    "prompt_tokens Infinity": (_raw_usage("Infinity"), GOOD),
    "usage a list": (chat_answer(GOOD, usage=[1, 2]), GOOD),
    "content parts": (chat_answer([{"type": "text", "text": "正确答案"}, {"type": "text", "text": "是：A"}]), GOOD),
    "content parts as strings": (chat_answer(["正确答案是：", "A"]), GOOD),
    "content null": (chat_answer(None), ""),
    "reasoning a number": (chat_answer(GOOD, reasoning_content=7), GOOD),
}


class HostileServer:
    """Answers question ``i``'s request with ``answers[i]`` (raw bytes, status 200), else a good answer."""

    def __init__(self) -> None:
        self.answers: dict[int, bytes] = {}
        self.requests = 0
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    outer.requests += 1
                found = re.search(r"第 (\d+) 题", json.dumps(json.loads(body), ensure_ascii=False))
                data = outer.answers.get(int(found.group(1)), chat_answer(GOOD)) if found else chat_answer(GOOD)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    hostile = HostileServer()
    yield hostile
    hostile.stop()


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_bank(tmp_path_factory.mktemp("bank") / "bank", QUESTIONS)


def _run(bank: Path, out: Path, server: HostileServer) -> tuple[int, str]:
    args = ["run", str(bank), "-m", "hostile", "-b", "openai", "-B", f"base_url={server.base_url}",
            "-B", "max_retries=0", "-o", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback: {result.exception!r}") from result.exception
    return result.exit_code, result.output


def _records(out: Path) -> dict[str, Any]:
    return {r.question_id: r for r in RunStore(out).records()}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_one_malformed_answer_in_20_fails_that_request_only_and_a_resume_keeps_all(
    kind: str, bank: Path, server: HostileServer, tmp_path: Path
) -> None:
    server.answers = {7: HOSTILE[kind]}
    out = tmp_path / "run"
    code, output = _run(bank, out, server)
    assert code == 1, output  # a finished run with failed requests
    records = _records(out)
    assert len(records) == N
    failed = {qid for qid, r in records.items() if r.parse_status == "failed"}
    assert failed == {"q7"}, output
    assert all(r.output == GOOD and r.correct for qid, r in records.items() if qid != "q7")
    assert records["q7"].error and "\n" not in records["q7"].error
    asked = server.requests
    code, again = _run(bank, out, server)
    assert code == 1, again
    assert server.requests == asked  # nothing asked again, nothing crashes again
    assert "0 new answer(s) this time, 20 already" in again


@pytest.mark.parametrize("kind", sorted(USABLE))
def test_an_answer_with_usable_text_and_broken_fields_is_kept(
    kind: str, bank: Path, server: HostileServer, tmp_path: Path
) -> None:
    data, text = USABLE[kind]
    server.answers = {3: data}
    out = tmp_path / "run"
    code, output = _run(bank, out, server)
    records = _records(out)
    assert len(records) == N, output
    assert records["q3"].output == text and records["q3"].parse_status != "failed", output
    if kind.startswith(("prompt_tokens", "usage")):
        assert records["q3"].prompt_tokens is None  # no plausible wrong count
    assert code == 0, output  # an empty answer is unparsed, not a failed request


FUZZ = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
ANSWERS: list[Callable[[], bytes]] = [lambda: chat_answer(GOOD), *(lambda d=d: d for d in HOSTILE.values()),
                                      *(lambda d=d: d for d, _ in USABLE.values())]  # fmt: skip


@FUZZ
@given(picks=st.dictionaries(st.integers(0, N - 1), st.integers(0, len(ANSWERS) - 1), max_size=6))
@pytest.mark.slow
def test_fuzz_any_mix_of_answers_gives_a_readable_run_and_a_resume_that_asks_nothing(
    picks: dict[int, int], bank: Path, server: HostileServer
) -> None:
    server.answers = {i: ANSWERS[k]() for i, k in picks.items()}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run"
        code, output = _run(bank, out, server)
        assert code in (0, 1), output
        records = _records(out)
        assert sorted(records) == sorted(q.id for q in QUESTIONS)
        asked = server.requests
        code, again = _run(bank, out, server)
        assert code in (0, 1) and server.requests == asked, again


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "-1.5", True])
def test_an_echoed_log_probability_that_is_not_a_finite_number_fails_the_scoring_request(value: object) -> None:
    from runners.backends._http import RequestFailed
    from runners.backends.openai import _sum_echoed

    answer = {"choices": [{"logprobs": {"text_offset": [0, 3, 5], "token_logprobs": [None, -0.5, value]}}]}
    with pytest.raises(RequestFailed, match="not a finite number"):
        _sum_echoed(answer, 3, 9)


@pytest.mark.parametrize("count", ["1e400", "NaN", "-5", '"many"', "[3]"])
def test_a_tokenize_answer_that_is_not_a_count_falls_back_to_the_estimate(count: str) -> None:
    """vLLM's /tokenize answering nonsense: the estimate (which errs long) is used, nothing raises."""
    from runners.backends._shared import estimate_tokens
    from runners.backends.openai import OpenAIBackend

    class Tokenize(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            data = b'{"count": ' + count.encode() + b"}"
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Tokenize)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        host, port = httpd.server_address[:2]
        with OpenAIBackend("m", base_url=f"http://{host!s}:{port}/v1", max_retries=0) as backend:
            text = "下列函数中是一次函数的是"
            assert backend.count_tokens(text) == estimate_tokens(text)
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("header", [{"Retry-After": "NaN"}, {"Retry-After": "inf"}, {"retry-after-ms": "nan"}])
def test_a_retry_after_that_is_not_a_delay_is_ignored(header: dict[str, str]) -> None:
    """A 429 whose Retry-After is NaN made the client sleep(nan), a ValueError; now the backoff is used."""
    import httpx

    from runners.backends._http import parse_retry_after

    assert parse_retry_after(httpx.Headers(header)) is None


def test_an_answer_over_the_size_cap_fails_its_request_unread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server sending gigabytes: the body is streamed and refused past the cap (set small here)."""
    import gzip

    import httpx

    from runners.backends import _http

    monkeypatch.setattr(_http, "MAX_ANSWER_BYTES", 10_000)
    big = chat_answer("答" * 20_000)
    small = gzip.compress(chat_answer(GOOD))  # a gzip answer under the cap still reads

    def handler(request: httpx.Request) -> httpx.Response:
        if b"big" in request.content:
            return httpx.Response(200, content=big)
        return httpx.Response(200, content=small, headers={"Content-Encoding": "gzip"})

    policy = _http.RetryPolicy(max_retries=0)
    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(_http.RequestFailed, match="answer larger than"):
            _http.post_json(client, "http://x/v1/chat/completions", {"q": "big"}, policy)
        answer = _http.post_json(client, "http://x/v1/chat/completions", {"q": "small"}, policy)
    assert answer["choices"][0]["message"]["content"] == GOOD
