"""summary.json names the model's chat template by its hash (#17 item 2): the same weights under
another template are another experiment, and a run's prompts are only reproducible with it."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from runners.backends._prompts import chat_template_hash
from runners.options import RunOptions
from runners.run import run_questions
from runners.summary import SUMMARY_FILE, RunResults
from tests._runs import question, write_bank
from tests.scripted import ScriptedBackend


class _Tokenizer:
    def __init__(self, chat_template: Any) -> None:
        self.chat_template = chat_template


def test_the_hash_follows_the_template_text() -> None:
    one, other = "{{ messages[0]['content'] }}", "{{ messages[-1]['content'] }}"
    assert chat_template_hash(_Tokenizer(one)) == hashlib.sha256(one.encode("utf-8")).hexdigest()[:16]
    assert chat_template_hash(_Tokenizer(one)) != chat_template_hash(_Tokenizer(other))
    assert chat_template_hash(_Tokenizer(None)) is None and chat_template_hash(object()) is None
    named = {"default": one, "tool_use": other}  # some tokenizers carry several named templates
    assert chat_template_hash(_Tokenizer(named)) == chat_template_hash(_Tokenizer(dict(reversed(named.items()))))


def test_the_transformers_backend_hashes_its_tokenizers_template(tiny_backend: Any, tiny_model_dir: Path) -> None:
    template = tiny_backend.tokenizer.chat_template
    assert isinstance(template, str) and template
    assert tiny_backend.chat_template_hash == hashlib.sha256(template.encode("utf-8")).hexdigest()[:16]


def test_summary_json_records_the_backends_chat_template_hash(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", [question("q0", "数学", "函数", "一次函数")])
    backend = ScriptedBackend("答案是 A")
    backend.chat_template_hash = "0123456789abcdef"  # type: ignore[attr-defined]
    out = tmp_path / "run"
    run_questions(RunOptions(data=bank, model="m", out=out, backend="scripted", backend_instance=backend))
    assert (
        RunResults.model_validate_json((out / SUMMARY_FILE).read_text("utf-8")).chat_template_hash == "0123456789abcdef"
    )
    run_questions(RunOptions(data=bank, model="m", out=tmp_path / "other", backend="scripted",
                             backend_instance=ScriptedBackend("答案是 A")))  # fmt: skip
    unknown = RunResults.model_validate_json((tmp_path / "other" / SUMMARY_FILE).read_text("utf-8"))
    assert unknown.chat_template_hash is None  # an HTTP server's template is not known here
