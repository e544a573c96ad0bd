"""The served PRM's client against a fake vLLM server on 127.0.0.1 (stdlib ``http.server``): reading, errors.

The fake tokenizes a chat as one token per character of its messages' contents, ``<extra_0>`` as token
:data:`SEP`; its ``/pooling`` gives token ``i`` of ``n`` the probabilities ``[1 - i/n, i/n]``, for every
token (vLLM's ``ALL`` pooling) or only at the separators (``STEP``). The real server is
``test_prm_vllm_server.py``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from k12eval.cli._wording import said
from kg.errors import SettingError
from reasoning_metrics.models.prm_format import PRM_SEPARATOR
from reasoning_metrics.models.prm_server import PRMServerError, ServedPRM, server_root
from tests.runners.backends.checks import free_port

SEP = 7
SOLUTIONS = [("小明有5个苹果，吃了2个，还剩几个？", ["5-2=3", "答案：3"]), ("What is 3 + 4?", ["3 + 4 = 7"])]
Route = Callable[[dict[str, Any]], tuple[int, bytes]]


def fake_ids(body: dict[str, Any]) -> list[int]:
    """The fake's tokenization of a ``/tokenize`` request."""
    if "prompt" in body:
        return [SEP] if body["prompt"] == PRM_SEPARATOR else [1] * len(body["prompt"])
    text = "".join(m["content"] for m in body["messages"])
    ids: list[int] = []
    for k, piece in enumerate(text.split(PRM_SEPARATOR)):
        ids += ([SEP] if k else []) + [1] * len(piece)
    return ids


def rows(ids: list[int], step: bool) -> list[list[float]]:
    """The fake's ``/pooling`` rows for ``ids``: per token, or at the separators only (``step``)."""
    return [[1 - i / len(ids), i / len(ids)] for i, t in enumerate(ids) if not step or t == SEP]


def answer(value: Any, status: int = 200) -> tuple[int, bytes]:
    return status, json.dumps(value).encode("utf-8")


def vllm_like(step: bool = True, served: str = "prm", max_model_len: int = 4096) -> dict[str, Route]:
    """Routes that answer as vLLM's server does."""
    return {
        "/v1/models": lambda _: answer({"data": [{"id": served, "max_model_len": max_model_len}]}),
        "/tokenize": lambda body: answer({"tokens": fake_ids(body), "count": len(fake_ids(body))}),
        "/pooling": lambda body: answer({"data": [{"index": 0, "data": rows(body["input"], step)}]}),
    }


class FakeServer:
    """A real HTTP server whose answer to each path is a route the test sets; it records what it was sent."""

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.sent: list[tuple[str, dict[str, Any]]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, body: dict[str, Any]) -> None:
                path = self.path
                fake.sent.append((path, body))
                status, data = fake.routes[path](body) if path in fake.routes else answer({"detail": "Not Found"}, 404)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._answer({})

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length", 0))
                self._answer(json.loads(self.rfile.read(size) or b"{}"))

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[[dict[str, Route]], FakeServer]]:
    started: list[FakeServer] = []

    def start(routes: dict[str, Route]) -> FakeServer:
        started.append(FakeServer(routes))
        return started[-1]

    yield start
    for server in started:
        server.close()


def client(server: FakeServer, **options: Any) -> ServedPRM:
    return ServedPRM("prm", base_url=server.url + "/v1", max_retries=0, **options)


@pytest.mark.parametrize("step", [True, False], ids=["step pooling", "all tokens"])
def test_the_probability_at_each_separator_is_read_from_the_ids_sent(serve: Any, step: bool) -> None:
    server = serve(vllm_like(step))
    got = client(server, concurrency=1).step_probabilities(SOLUTIONS)
    assert [len(p or []) for p in got] == [len(steps) for _, steps in SOLUTIONS]
    pooled = [body["input"] for path, body in server.sent if path == "/pooling"][1:]  # after the probe
    for ids, probabilities in zip(pooled, got, strict=True):
        at = [i for i, t in enumerate(ids) if t == SEP]
        assert probabilities == pytest.approx([i / len(ids) for i in at])
    assert client(server, concurrency=4).step_probabilities(SOLUTIONS * 3) == got * 3  # in order, concurrently


def test_the_chat_goes_to_tokenize_as_the_model_card_builds_it(serve: Any) -> None:
    server = serve(vllm_like())
    client(server).step_probabilities(SOLUTIONS[:1])
    (chat,) = [body for path, body in server.sent if path == "/tokenize" and "messages" in body]
    assert [m["role"] for m in chat["messages"]] == ["system", "user", "assistant"]
    assert chat["messages"][2]["content"] == "5-2=3<extra_0>答案：3<extra_0>"
    assert chat["add_generation_prompt"] is False and chat["model"] == "prm"
    (probe, pooled) = [body for path, body in server.sent if path == "/pooling"]
    assert probe["input"] == [SEP, SEP] and pooled["task"] == "token_classify"


def test_a_solution_longer_than_the_served_length_is_not_scored(serve: Any) -> None:
    server = serve(vllm_like(max_model_len=60))
    long = ("Q", ["x" * 80])
    assert client(server).step_probabilities([SOLUTIONS[1], long])[1] is None


def test_a_server_that_is_down_is_named(serve: Any) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(PRMServerError, match=rf"PRM server {url}: no server answers .*vllm serve"):
        ServedPRM("prm", base_url=url + "/v1")


def test_a_model_the_server_does_not_serve_is_named_with_the_ones_it_does(serve: Any) -> None:
    server = serve(vllm_like(served="Qwen2.5-Math-PRM-7B"))
    with pytest.raises(PRMServerError, match=rf"{server.url}: the server does not serve 'prm' .*Qwen2.5-Math-PRM-7B"):
        client(server)


def test_a_server_pooling_at_another_token_is_refused_with_the_flag_that_fixes_it(serve: Any) -> None:
    routes = vllm_like()
    routes["/pooling"] = lambda body: answer({"data": [{"index": 0, "data": []}]})
    server = serve(routes)
    with pytest.raises(PRMServerError, match=rf"{server.url}: .*step_tag_id\": {SEP}"):
        client(server)


def test_a_server_without_pooling_is_told_how_to_start_one(serve: Any) -> None:
    routes = vllm_like()
    del routes["/pooling"]
    server = serve(routes)
    with pytest.raises(PRMServerError, match=rf"{server.url}: /pooling: HTTP 404.*--runner pooling"):
        client(server)


def _after_probe(bad: Route) -> Route:
    """``/pooling`` answering the probe as vLLM does, then ``bad``."""
    calls = iter(range(10**6))
    good = vllm_like()["/pooling"]
    return lambda body: good(body) if next(calls) == 0 else bad(body)


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        (lambda body: (200, b"{rows"), "/pooling: answer is not JSON"),
        (lambda body: answer({"data": [{"index": 0, "data": [[0.1, 0.2, 0.7]] * 3}]}), "no rows of two probabilities"),
        (lambda body: answer({"data": [{"index": 0, "data": [[0.5, 0.5]] * 3}]}), "answered 3 rows for \\d+ tokens"),
        (lambda body: answer({"data": [{"index": 0, "data": [[0.5, "0.5"]]}]}), "no rows of two probabilities"),
        (lambda body: answer({"detail": "boom"}, 500), "/pooling: HTTP 500: boom"),
    ],
    ids=["not JSON", "three labels", "wrong length", "a text", "server error"],
)
def test_an_answer_that_does_not_fit_is_an_error_naming_the_url(serve: Any, bad: Route, said: str) -> None:
    routes = vllm_like()
    routes["/pooling"] = _after_probe(bad)
    server = serve(routes)
    prm = client(server)
    with pytest.raises(PRMServerError, match=rf"PRM server {server.url}: .*{said}"):
        prm.step_probabilities(SOLUTIONS[:1])


def test_a_busy_server_is_asked_again(serve: Any) -> None:
    busy = iter([True, False])
    routes = vllm_like()
    good = routes["/pooling"]
    routes["/pooling"] = lambda body: answer({"detail": "busy"}, 503) if next(busy, False) else good(body)
    server = serve(routes)
    prm = ServedPRM("prm", base_url=server.url, max_retries=1, backoff_s=0.0)
    assert prm.step_probabilities(SOLUTIONS[1:])[0] is not None


def test_an_option_of_the_in_process_adapters_is_refused_with_the_ones_it_takes(serve: Any) -> None:
    server = serve(vllm_like())
    with pytest.raises(TypeError, match="no option batch_size; a served PRM takes base_url, api_key, concurrency"):
        client(server, batch_size=8)


def test_no_server_named_is_said_as_the_api_and_the_command_line_give_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(SettingError) as caught:
        ServedPRM("prm")
    assert "prm_option='base_url=http://HOST:8000/v1'" in str(caught.value)
    assert "give --prm-option base_url=http://HOST:8000/v1 " in said(caught.value)


def test_what_users_paste_is_cut_to_the_servers_root() -> None:
    for pasted in (
        "http://h:8000/v1",
        "http://h:8000/v1/",
        "http://h:8000/pooling",
        "http://h:8000",
        "http://h:8000/v1/models",
    ):
        assert server_root(pasted) == "http://h:8000"


def test_meta_eval_names_the_server_it_could_not_reach(tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from k12eval.cli import app

    data = tmp_path / "pb.json"
    data.write_text(json.dumps([{"id": "p0", "problem": "1+1=?", "steps": ["1+1=2"], "label": -1}]), encoding="utf-8")
    url = f"http://127.0.0.1:{free_port()}"
    args = ["meta-eval", str(data), "--format", "processbench", "--detectors", "prm", "--encoder", "none"]
    prm = ["--prm", "Qwen2.5-Math-PRM-7B", "--prm-backend", "openai", "--prm-option", f"base_url={url}/v1"]
    result = CliRunner().invoke(app, [*args, *prm, "--boot", "0"])
    assert result.exit_code == 2, result.output
    assert f"PRM server {url}: no server answers" in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_score_stops_on_a_failing_server_with_one_line_and_resumes_without_losing_a_chain(
    serve: Any, tmp_path: Any
) -> None:
    from typer.testing import CliRunner

    from k12eval.cli import app
    from tests.reasoning_metrics.written_runs import write_bank, write_run

    routes = vllm_like()
    good = routes["/pooling"]
    pooled = iter(range(10**6))
    failing = {"on": True}

    def pooling(body: dict[str, Any]) -> tuple[int, bytes]:  # the probe and the first chain, then HTTP 500
        if failing["on"] and next(pooled) >= 2:
            return answer({"detail": "CUDA out of memory"}, 500)
        return good(body)

    routes["/pooling"] = pooling
    server = serve(routes)
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    prm = ["--prm", "prm", "--prm-backend", "openai", "--prm-option", f"base_url={server.url}/v1"]
    args = ["score", str(run), "--embedder", "none", "--nli", "none", "--chunk-size", "1", *prm]
    stopped = CliRunner().invoke(app, [*args, "--prm-option", "max_retries=0"])
    assert stopped.exit_code == 2 and "Traceback" not in stopped.output
    assert f"error: PRM server {server.url}: /pooling: HTTP 500: CUDA out of memory" in stopped.output
    kept = (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(kept) == 1  # the chain scored before the failure
    failing["on"] = False
    resumed = CliRunner().invoke(app, args)
    assert resumed.exit_code == 0, resumed.output
    lines = [json.loads(x) for x in (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(line["id"] for line in lines) == ["q-apples", "q-eggs"] and lines[0] == json.loads(kept[0])
