"""``k12eval run --dry-run``: the exact prompts of the first questions, with no model and no run folder.

The prompts are built by :func:`runners.answering.build_prompt`, the rule a run uses. Two things a
run learns from its model are given instead: whether it takes chat messages (``--chat`` /
``--base``; else, for a model in a local folder, whether its tokenizer files carry a chat template, as the
loaded tokenizer would say; otherwise what its backend's class says, :attr:`runners.backends.base.Backend.is_chat`:
chat for ``openai``, text for the others) and how the few-shot budget is counted (in characters, with no
tokenizer loaded).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from kg.errors import InputError
from runners.answering import build_prompt
from runners.backends import Backend, backend_class, server_side_model
from runners.backends._prompts import chat_template_in
from runners.options import RunOptions, check_options
from runners.protocol import exemplar_pool, with_protocol_defaults, with_scored_split
from runners.run import check_templates, select_questions

DEFAULT_LIMIT = 3
"""Questions shown when ``--limit`` is not given."""

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
"""Characters a terminal acts on or hides (escapes, bidi overrides, zero-width): shown escaped."""


@dataclass(frozen=True)
class DryPrompt:
    """One question's prompt as the backend would receive it."""

    question_id: str
    type: str
    sent: str | list[dict[str, str]]


@dataclass(frozen=True)
class DryRun:
    """The prompts of a dry run and how they were made."""

    prompts: list[DryPrompt]
    chat: bool
    budget_in_chars: bool
    options: RunOptions
    chat_from_files: bool = False
    """Whether ``chat`` was read from the local model's tokenizer files (neither ``--chat`` nor ``--base`` given)."""


def dry_run(options: RunOptions) -> DryRun:
    """Build the prompts of the first ``options.limit`` (default 3) selected questions; loads no model, writes nothing.

    Without ``--limit`` the preview is the first 3 questions the run would ask, of its shard too: a limit of 3
    applied before the shard (as a run's ``--limit`` is) would leave a shard of 16 with no question."""
    options = with_protocol_defaults(options)
    check_options(options)
    questions, data = select_questions(options)
    if not questions:
        raise InputError(f"{options.data}: no question matches the filters")
    if options.limit is None:
        questions = questions[:DEFAULT_LIMIT]
        options = replace(options, limit=DEFAULT_LIMIT)
    options = with_scored_split(options, data["split"])  # the split shown
    check_templates(options, questions)
    from_files = None if options.chat is not None else _chat_from_files(options)
    chat = options.chat if options.chat is not None else _backend_type(options).is_chat
    chat = chat if from_files is None else from_files
    pool = exemplar_pool(options)
    prompts = [DryPrompt(q.id, q.type.value, build_prompt(q, options, pool, len, chat)[1]) for q in questions]
    return DryRun(prompts, chat, pool is not None, options, chat_from_files=from_files is not None)


def _chat_from_files(options: RunOptions) -> bool | None:
    """For a model the backend loads from a local folder, whether its tokenizer files carry a chat template."""
    if options.backend_instance is not None or server_side_model(options.backend):
        return None
    folder = Path(options.model_path or options.model).expanduser()
    return chat_template_in(folder) if folder.is_dir() else None


def _backend_type(options: RunOptions) -> type[Backend]:
    """The class of the run's backend (its chat-ness before a model is loaded: :attr:`Backend.is_chat`)."""
    instance = options.backend_instance
    return backend_class(options.backend) if instance is None else type(instance)


def terminal_safe(text: str) -> str:
    """``text`` with control, bidi and zero-width characters written as escapes (``\\x1b``, ``\\u202e``);
    line breaks and tabs are kept."""
    return _UNSAFE.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


def show(prompt: DryPrompt) -> str:
    """What the backend receives, for a terminal: text as it is, chat messages as JSON, both escaped."""
    if isinstance(prompt.sent, str):
        return terminal_safe(prompt.sent)
    return terminal_safe(json.dumps(prompt.sent, ensure_ascii=False, indent=1))
