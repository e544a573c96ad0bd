"""A small OpenAI-protocol HTTP server around a real transformers model, for tests and demos.

It speaks the parts of the protocol the ``openai`` backend uses: ``/v1/completions``
(with ``echo`` + ``logprobs``), ``/v1/chat/completions``, ``/v1/models`` and vLLM's
``/tokenize``. :class:`Faults` makes it misbehave on purpose (429 with ``Retry-After``,
500, dropped connections, permanent failures) so retries and recorded failures can be
tested against real HTTP.

    python -m runners.testing.openai_server --model DIR --port 8000
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from runners.backends.base import GenerationRequest, SamplingParams
from runners.backends.transformers import TransformersBackend


@dataclass(frozen=True)
class Faults:
    """Ways to fail. Each distinct prompt's attempts are counted from 1."""

    flaky: int = 0
    """Fail each prompt's first ``flaky`` attempts, cycling 429, 500 and a dropped connection."""
    retry_after: str | None = "0"
    """``Retry-After`` header sent with a 429 (``None``: no header)."""
    fail_marker: str | None = None
    """Prompts containing this text always get 500."""
    reject_marker: str | None = None
    """Prompts containing this text get 400 (not worth retrying)."""
    drop_marker: str | None = None
    """Prompts containing this text have their connection closed unanswered, at every attempt."""
    hang_marker: str | None = None
    """Prompts containing this text are never answered until :meth:`OpenAIServer.release` (or the server stops):
    the client's own timeout ends each attempt, whatever the machine's speed."""
    delay_s: float = 0.0
    """Extra time each answer takes (to make concurrency observable)."""
    no_echo: bool = False
    """Refuse ``echo`` like servers that cannot return prompt log-probabilities."""
    hold_after: int | None = None
    """Answer this many requests, then hold every later one until :meth:`OpenAIServer.release`: a test
    stops a client mid-run at a point it chooses, instead of racing the client's speed."""
    gather: int = 0
    """Hold each completion until this many are in flight at once, then answer them together (a barrier the
    test controls, waited on for at most ``gather_timeout_s``): a client that sends fewer at once fails."""
    gather_timeout_s: float = 600.0
    refused_params: tuple[str, ...] = ()
    """Request parameters answered with 400 as OpenAI's reasoning models (o1, o3, gpt-5) answer them:
    ``max_tokens`` ("use 'max_completion_tokens' instead"), any other ("only the default value")."""


class _Listener(ThreadingHTTPServer):
    request_queue_size = 128
    """Connections the kernel holds until the accept loop takes them (socketserver's default is 5): a client that
    opens 24 at once on a busy machine had some wait out its 120 s read timeout behind a full queue (#37)."""


class OpenAIServer:
    """The server, run on a background thread: ``with OpenAIServer(backend) as server: server.base_url``."""

    def __init__(
        self, backend: TransformersBackend, faults: Faults = Faults(), host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.backend = backend
        self.faults = faults
        self.attempts: Counter[str] = Counter()
        """Attempts seen per prompt (the JSON of ``prompt`` or ``messages``)."""
        self.bodies: list[dict[str, Any]] = []
        """Every completions request body received, in order."""
        self.in_flight = 0
        self.max_in_flight = 0
        self.answered = 0
        """Requests answered with a completion."""
        self.held = 0
        """Requests waiting at the hold (see :attr:`Faults.hold_after`)."""
        self._count_lock = threading.Lock()
        self._model_lock = threading.Lock()
        self._released = threading.Event()
        self.barrier = threading.Barrier(faults.gather) if faults.gather > 1 else None
        self.httpd = _Listener((host, port), _handler_for(self))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://host:port/v1``."""
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> OpenAIServer:
        """Serve on a daemon thread."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.release()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def release(self) -> None:
        """Let every held request, and every later one, through."""
        self._released.set()

    def wait_until_held(self, alive: Callable[[], bool], poll_s: float = 0.02) -> None:
        """Return once a request waits at the hold; fail if ``alive()`` turns false first (the client ended).

        No clock: the client is stopped by the hold, so this waits for its progress, however slow the machine.
        """
        while not self.held:
            if not alive():
                raise AssertionError("the client ended before a request reached the hold")
            time.sleep(poll_s)

    def _hold(self) -> None:
        """Block this request if it comes after the first ``hold_after`` answers and the hold is not released."""
        limit = self.faults.hold_after
        with self._count_lock:
            hold = limit is not None and self.answered >= limit and not self._released.is_set()
            if hold:
                self.held += 1
        if hold:
            self._released.wait()
            with self._count_lock:
                self.held -= 1

    def fault_for(self, key: str) -> int | str | None:
        """The status to answer with (or ``"drop"``, ``"hang"``) for this attempt at ``key``, or ``None``."""
        with self._count_lock:
            self.attempts[key] += 1
            attempt = self.attempts[key]
        if self.faults.reject_marker and self.faults.reject_marker in key:
            return 400
        if self.faults.fail_marker and self.faults.fail_marker in key:
            return 500
        if self.faults.drop_marker and self.faults.drop_marker in key:
            return "drop"
        if self.faults.hang_marker and self.faults.hang_marker in key:
            return "hang"
        if attempt <= self.faults.flaky:
            return (429, 500, "drop")[(attempt - 1) % 3]
        return None

    def complete(self, body: dict[str, Any], chat: bool) -> dict[str, Any]:
        """Answer a completions or chat/completions body."""
        params = _sampling(body)
        prompt = body["messages"] if chat else body["prompt"]
        if chat and not isinstance(prompt, list):
            raise ValueError("messages must be a list")
        if not chat and not isinstance(prompt, str):
            raise ValueError("prompt must be one string")
        if isinstance(prompt, str) and body.get("echo"):
            return self._echo(prompt)
        with self._model_lock:
            result = self.backend.generate([GenerationRequest("0", prompt, params)])[0]
        if result.error:
            raise ValueError(result.error)
        choices = []
        for index, (text, reason) in enumerate(zip(result.texts, result.finish_reasons, strict=True)):
            choice: dict[str, Any] = {"index": index, "finish_reason": reason}
            if chat:
                choice["message"] = {"role": "assistant", "content": text}
                if index == 0 and result.reasoning is not None:  # as vLLM's reasoning parsers answer
                    choice["message"]["reasoning_content"] = result.reasoning
            else:
                choice["text"] = text
            if index == 0 and result.top_logprobs is not None:
                choice["logprobs"] = _logprobs_payload(result.top_logprobs, chat)
            choices.append(choice)
        return {
            "object": "chat.completion" if chat else "text_completion",
            "model": self.backend.model,
            "choices": choices,
            "usage": {"prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens},
        }

    def _echo(self, prompt: str) -> dict[str, Any]:
        """The prompt's own token log-probabilities (the first token has none), as completions do.

        Simplified: an echo request gets the prompt back and no new tokens (``max_tokens`` is ignored).
        """
        if self.faults.no_echo:
            raise ValueError("echo is not supported")
        import torch

        tok = self.backend.tokenizer
        encoded = tok(prompt, add_special_tokens=True, return_offsets_mapping=True)
        ids, spans = encoded["input_ids"], encoded["offset_mapping"]
        with self._model_lock, torch.inference_mode():
            logits = self.backend.lm(input_ids=torch.tensor([ids], device=self.backend.device)).logits[0]
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        values: list[float | None] = [None] + [float(logprobs[k - 1, ids[k]]) for k in range(1, len(ids))]
        payload = {
            "tokens": [tok.decode([i]) for i in ids],
            "token_logprobs": values,
            "text_offset": [start for start, _ in spans],
            "top_logprobs": None,
        }
        choice = {"index": 0, "text": prompt, "finish_reason": "length", "logprobs": payload}
        return {"object": "text_completion", "model": self.backend.model, "choices": [choice]}

    def tokenize(self, body: dict[str, Any]) -> dict[str, Any]:
        """vLLM's ``/tokenize``."""
        ids = self.backend.tokenizer(body["prompt"], add_special_tokens=body.get("add_special_tokens", True))[
            "input_ids"
        ]
        return {"count": len(ids), "tokens": ids, "max_model_len": self.backend.max_length}


def _sampling(body: dict[str, Any]) -> SamplingParams:
    stop = body.get("stop") or ()
    logprobs = body.get("top_logprobs") if body.get("logprobs") is True else body.get("logprobs")
    return SamplingParams(
        temperature=float(body.get("temperature", 1.0)),
        top_p=float(body.get("top_p", 1.0)),
        max_tokens=int(body.get("max_tokens") or body.get("max_completion_tokens") or 16),
        n=int(body.get("n", 1)),
        seed=body.get("seed"),
        stop=(stop,) if isinstance(stop, str) else tuple(stop),
        logprobs=None if logprobs is None or logprobs is False else int(logprobs),
        top_k=body.get("top_k"),
        repetition_penalty=body.get("repetition_penalty"),
    )


def _refusal(param: str) -> dict[str, Any]:
    """OpenAI's error for a parameter a reasoning model does not take, in its words and shape."""
    if param == "max_tokens":
        message = (
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
        )
        return {"message": message, "type": "invalid_request_error", "param": param, "code": "unsupported_parameter"}
    message = (
        f"Unsupported value: '{param}' does not support 0 with this model. Only the default (1) value is supported."
    )
    return {"message": message, "type": "invalid_request_error", "param": param, "code": "unsupported_value"}


def _logprobs_payload(table: list[dict[str, float]], chat: bool) -> dict[str, Any]:
    if not chat:
        return {"top_logprobs": table}
    content = []
    for entry in table:
        token, value = max(entry.items(), key=lambda item: item[1])
        content.append(
            {
                "token": token,
                "logprob": value,
                "top_logprobs": [{"token": t, "logprob": v} for t, v in entry.items()],
            }
        )
    return {"content": content}


def _handler_for(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            # ASCII escapes, as Python servers send them: a lone surrogate in a model's text
            # travels as its \ud83d escape instead of breaking the encoder.
            data = json.dumps(payload).encode("ascii")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
            self._send(status, {"error": {"message": message, "type": "test_server", "code": status}}, headers)

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": server.backend.model, "object": "model"}]})
            else:
                self._error(404, f"no route {self.path}")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._error(400, "body is not JSON")
                return
            with server._count_lock:
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                self._route(body)
            finally:
                with server._count_lock:
                    server.in_flight -= 1

        def _route(self, body: dict[str, Any]) -> None:
            routes = {"/v1/completions": False, "/v1/chat/completions": True}
            if self.path == "/tokenize":
                self._send(200, server.tokenize(body))
                return
            if self.path not in routes:
                self._error(404, f"no route {self.path}")
                return
            chat = routes[self.path]
            with server._count_lock:
                server.bodies.append(body)
            refused = next((name for name in server.faults.refused_params if name in body), None)
            if refused is not None:
                self._send(400, {"error": _refusal(refused)})
                return
            key = json.dumps(body.get("messages" if chat else "prompt"), ensure_ascii=False)
            fault = server.fault_for(key)
            if server.faults.delay_s:
                time.sleep(server.faults.delay_s)
            if server.barrier is not None:
                try:
                    server.barrier.wait(timeout=server.faults.gather_timeout_s)
                except threading.BrokenBarrierError:
                    self._error(503, f"fewer than {server.faults.gather} requests arrived together")
                    return
            if fault == "hang":
                server._released.wait()
            if fault in ("drop", "hang"):
                self.close_connection = True
                return
            if fault == 429:
                retry = server.faults.retry_after
                self._error(429, "rate limited", {"Retry-After": retry} if retry is not None else None)
                return
            if isinstance(fault, int):
                self._error(fault, "injected failure")
                return
            server._hold()
            try:
                answer = server.complete(body, chat)
            except (KeyError, TypeError, ValueError) as exc:
                self._error(400, f"bad request: {exc}")
                return
            with server._count_lock:
                server.answered += 1
            self._send(200, answer)

    return Handler


def main() -> None:
    """Serve a local model folder until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    server = OpenAIServer(TransformersBackend(args.model), host=args.host, port=args.port)
    print(f"serving {args.model} at {server.base_url}", flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
