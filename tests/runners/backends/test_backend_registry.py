"""The name table, lazy imports, sampling defaults and the shared text helpers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kg.errors import InputError
from runners.backends import BACKENDS, backend_options, default_sampling, get_backend
from runners.backends._shared import chunked, estimate_tokens, truncate_at_stop
from runners.backends.base import Backend

ROOT = Path(__file__).resolve().parents[3]


def test_importing_backends_loads_no_model_library() -> None:
    code = (
        "import sys, json, runners.backends as b\n"
        "heavy = ['torch', 'transformers', 'vllm', 'httpx', 'tokenizers']\n"
        "print(json.dumps({'loaded': [m for m in heavy if m in sys.modules], 'names': sorted(b.BACKENDS)}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    assert report["loaded"] == []
    assert report["names"] == ["openai", "replay", "transformers", "vllm"]


def test_every_table_entry_names_a_class_with_the_protocol_methods() -> None:
    import importlib

    for name, target in BACKENDS.items():
        module, _, attribute = target.partition(":")
        if name == "vllm" and importlib.util.find_spec("vllm") is None:
            source = (ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
            assert f"class {attribute}" in source
            continue
        cls = getattr(importlib.import_module(module), attribute)
        assert cls.name == name
        for method in ("generate", "loglikelihood", "count_tokens"):
            assert callable(getattr(cls, method))


def test_unknown_backend_names_the_choices() -> None:
    with pytest.raises(InputError, match=r"unknown backend 'vlm'.*transformers, vllm, openai, replay"):
        get_backend("vlm", "m")


def test_unknown_option_is_refused_before_anything_loads(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"backend 'replay' has no option 'temprature'.*path"):
        get_backend("replay", str(tmp_path / "missing.jsonl"), temprature=0.5)


def test_backend_options_lists_keyword_options_with_defaults() -> None:
    options = backend_options("openai")
    assert options["concurrency"] == 8
    assert "model" not in options


def test_get_backend_returns_a_protocol_instance(tmp_path: Path) -> None:
    recorded = tmp_path / "r.jsonl"
    recorded.write_text(json.dumps({"id": "q1", "response": "A"}) + "\n", encoding="utf-8")
    backend = get_backend("replay", str(recorded))
    assert isinstance(backend, Backend)
    assert backend.name == "replay"


def test_default_sampling_follows_the_paper() -> None:
    chat, base = default_sampling(True), default_sampling(False)
    assert (chat.temperature, chat.top_p) == (0.0, 1.0)
    assert (base.temperature, base.top_p) == (0.8, 0.95)


@pytest.mark.parametrize(
    ("text", "stop", "expected"),
    [
        ("答案是A。\n\n问题", ("\n\n",), ("答案是A。", True)),
        ("abc END def STOP", ("STOP", "END"), ("abc ", True)),
        ("no stop here", ("X",), ("no stop here", False)),
        ("empty stop ignored", ("",), ("empty stop ignored", False)),
    ],
)
def test_truncate_at_stop_cuts_at_the_earliest(text: str, stop: tuple[str, ...], expected: tuple[str, bool]) -> None:
    assert truncate_at_stop(text, stop) == expected


def test_estimate_tokens_errs_long_for_chinese_and_english() -> None:
    assert estimate_tokens("一次函数") == 4  # 12 bytes
    assert estimate_tokens("The quick brown fox") >= 5
    assert estimate_tokens("") == 0


def test_chunked_keeps_order_and_sizes() -> None:
    assert list(chunked(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(chunked([], 3)) == []
