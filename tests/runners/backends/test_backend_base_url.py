"""The openai backend's ``base_url`` as users paste it (#27 item 7), against a real HTTP server on 127.0.0.1.

An endpoint pasted after the API root is cut; a root without ``/v1`` gets it when ``/v1/models``
answers; a URL that serves no ``/models`` is refused before any request is sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from k12eval.cli import app
from kg.errors import InputError
from runners.backends import get_backend
from runners.backends.base import GenerationRequest
from runners.store import RunStore
from runners.testing.openai_server import OpenAIServer
from tests._runs import question, write_bank
from tests.runners.backends.checks import free_port
from tests.scripted import ScriptedBackend

ANSWER = "正确答案是：B"


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(ScriptedBackend(ANSWER)) as running:  # type: ignore[arg-type]
        yield running


def _host(server: OpenAIServer) -> str:
    return server.base_url.removesuffix("/v1")


def _ask(base_url: str, **options: object) -> tuple[str, str | None, list[str]]:
    backend = get_backend("openai", "scripted", base_url=base_url, backoff_s=0.01, max_retries=0, **options)
    with backend:  # type: ignore[attr-defined]
        [result] = backend.generate([GenerationRequest("q", [{"role": "user", "content": "浮力的方向是？"}])])
    return backend.base_url, result.error, result.texts  # type: ignore[attr-defined]


@pytest.mark.parametrize("suffix", ["/v1/chat/completions", "/v1/completions/", ""])
def test_a_pasted_endpoint_or_a_missing_v1_still_reaches_the_api(server: OpenAIServer, suffix: str) -> None:
    base_url, error, texts = _ask(_host(server) + suffix)
    assert (base_url, error, texts) == (_host(server) + "/v1", None, [ANSWER])


def test_a_url_that_serves_no_models_is_refused_before_any_request(server: OpenAIServer) -> None:
    with pytest.raises(InputError) as refused:
        get_backend("openai", "scripted", base_url=_host(server) + "/api")
    message = str(refused.value)
    assert f"base_url {_host(server)}/api is not the root of an OpenAI-compatible API" in message
    assert "HTTP 404" in message and "/api/v1/models" in message and "\n" not in message
    assert not server.attempts  # no completion was asked for


def test_probe_false_leaves_the_url_as_written(server: OpenAIServer) -> None:
    base_url, error, _ = _ask(_host(server) + "/api", probe=False)
    assert base_url == _host(server) + "/api" and error is not None and error.startswith("HTTP 404")


def test_an_unreachable_server_is_left_to_the_requests_which_record_it() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    base_url, error, _ = _ask(url)
    assert base_url == url and error is not None and "ConnectError" in error


def _run_one_question(base_url: str, tmp_path: Path) -> Result:
    """``k12eval run`` of a one-question bank on the openai backend at ``base_url``, into ``tmp_path / "r"``."""
    bank = write_bank(tmp_path / "bank", [question("q0", "物理", "力学", "浮力", stem="浮力的方向是")])
    args = ["run", str(bank), "-b", "openai", "-m", "scripted", "-B", f"base_url={base_url}", "-o", str(tmp_path / "r")]
    return CliRunner().invoke(app, args)


def test_run_with_the_host_alone_answers_every_question(server: OpenAIServer, tmp_path: Path) -> None:
    result = _run_one_question(_host(server), tmp_path)
    assert result.exit_code == 0, result.output
    [record] = RunStore(tmp_path / "r").records()
    assert record.error is None and record.output == ANSWER and record.extracted == ["B"]


def test_run_refuses_a_wrong_root_in_one_line_before_the_run(server: OpenAIServer, tmp_path: Path) -> None:
    result = _run_one_question(f"{_host(server)}/api", tmp_path)
    assert result.exit_code == 2
    assert "is not the root of an OpenAI-compatible API" in result.output and "Traceback" not in result.output
    assert not server.attempts
