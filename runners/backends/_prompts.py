"""Turn a prompt (plain text or chat messages) into token ids, the same way for every local backend.

Plain text is encoded as is (with the tokenizer's own special tokens, e.g. a BOS); chat
messages go through the tokenizer's chat template with the generation prompt appended, and
the rendered text is encoded without adding special tokens again (the template has them).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from runners.backends.base import ChatMessages


class PromptError(ValueError):
    """A prompt this model cannot take (chat messages without a chat template, too long...)."""


def has_chat_template(tokenizer: Any) -> bool:
    """Whether the tokenizer carries a chat template (how chat models are told from base models)."""
    return bool(getattr(tokenizer, "chat_template", None))


def chat_template_in(folder: Path) -> bool | None:
    """Whether a local model folder's tokenizer files carry a chat template, read without loading the tokenizer
    (``chat_template.jinja``/``.json`` beside it, as transformers 4.47+ saves it, or ``tokenizer_config.json``'s
    ``chat_template``): what :func:`has_chat_template` finds once loaded. ``None`` when there are no such files."""
    if (folder / "chat_template.jinja").is_file() or (folder / "chat_template.json").is_file():
        return True
    try:
        config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return bool(config.get("chat_template")) if isinstance(config, dict) else None


def chat_template_hash(tokenizer: Any) -> str | None:
    """The first 16 hex digits of the SHA-256 of the tokenizer's chat template; ``None`` without one.

    Several named templates (a dict, as some tokenizers carry) are hashed as sorted JSON.
    """
    template = getattr(tokenizer, "chat_template", None)
    if not template:
        return None
    text = template if isinstance(template, str) else json.dumps(template, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def render_chat(tokenizer: Any, messages: ChatMessages) -> str:
    """The chat template applied to ``messages``, ending with the assistant's turn opened."""
    if not has_chat_template(tokenizer):
        raise PromptError("chat messages given but the model has no chat template; send plain text")
    text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return str(text)


def prompt_ids(tokenizer: Any, prompt: str | ChatMessages) -> list[int]:
    """Token ids of ``prompt`` as the model sees them at generation time."""
    if isinstance(prompt, str):
        return list(tokenizer(prompt, add_special_tokens=True)["input_ids"])
    return list(tokenizer(render_chat(tokenizer, prompt), add_special_tokens=False)["input_ids"])


def continuation_ids(tokenizer: Any, continuation: str) -> list[int]:
    """Token ids of a continuation, tokenized on its own and appended after the prompt's ids.

    Tokenizing separately keeps the prompt's ids exactly those used for generation; a
    continuation that should start with a space must carry it (``" A"``).
    """
    return list(tokenizer(continuation, add_special_tokens=False)["input_ids"])


def scoring_ids(tokenizer: Any, prompt: str | ChatMessages, continuation: str) -> tuple[list[int], int]:
    """``(ids, n)``: prompt and continuation ids joined; the last ``n`` ids are the continuation.

    An empty prompt is prefixed by the BOS (or EOS) token so the first continuation token has
    something to be predicted from.
    """
    context = prompt_ids(tokenizer, prompt)
    if not context:
        prefix = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
        if prefix is None:
            raise PromptError("empty prompt and the tokenizer has neither a BOS nor an EOS token")
        context = [prefix]
    tail = continuation_ids(tokenizer, continuation)
    return context + tail, len(tail)
