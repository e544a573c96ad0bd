"""The scoring models the command line was given: one per role (``--embedder``...) and one per metric (``--model-for``).

Every model given must be used: one for a metric that is not computed, or for a role no
computed metric needs, is an error naming the option, not something silently ignored.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from k12eval.cli._common import UserError, comma_list

ModelForOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--model-for",
        help="METRIC=MODEL: a metric's own model instead of its role's (repeat, or a comma list); METRIC is a "
        "metric name ('alignment' is reasoning_alignment) or 'reference' (every score against the reference), with "
        ".ROLE for a metric that needs two models (faithfulness_token.token_embedder=...). The CK12 paper (mpnet for "
        "Reasoning Alignment only): --embedder facebook/roscoe-512-roberta-base --model-for "
        "alignment=all-mpnet-base-v2.",
    ),
]

ROLE_FLAGS = {
    "encoder": "--embedder",
    "nli": "--nli",
    "token_embedder": "--token-model",
    "lm": "--lm",
    "grammar": "--grammar-model",
}
"""Model role -> the option that gives it."""
ROLE_NAMES = {
    "encoder": "sentence encoder",
    "nli": "NLI model",
    "token_embedder": "token-embedding model",
    "lm": "language model",
    "grammar": "grammar (CoLA) model",
}


def role_models(**given: str | None) -> dict[str, str]:
    """``{role: spec}`` of the role options given (keyword: the role)."""
    return {role: spec for role, spec in given.items() if spec}


def metric_models(values: list[str] | None) -> dict[str, str]:
    """``--model-for KEY=MODEL`` values as ``{KEY: MODEL}`` (keys checked by :func:`check_models`)."""
    pairs: dict[str, str] = {}
    for item in comma_list(values):
        key, sep, model = item.partition("=")
        if not sep or not key.strip() or not model.strip():
            raise UserError(f"--model-for {item!r}: expected METRIC=MODEL (e.g. alignment=all-mpnet-base-v2)")
        pairs[key.strip()] = model.strip()
    return pairs


def check_models(plan: Any, roles: dict[str, str], also: tuple[str, ...] = ()) -> None:
    """Raise :class:`UserError` for a model no computed metric of ``plan`` uses; ``also``: roles used anyway
    (detectors)."""
    from reasoning_metrics.permetric import base_roles, metrics_using

    chosen, assigned = plan.metrics, plan.assigned
    used = base_roles(chosen, assigned) | set(also)
    for role, spec in roles.items():
        if role in used or spec.strip().lower() == "none":
            continue
        flag = ROLE_FLAGS[role]
        own = [m.name for m in chosen if role in assigned.get(m.name, {})]
        why = (
            f"every metric that needs it has its own (--model-for {', '.join(own)})"
            if own
            else f"none of the metrics computed uses a {ROLE_NAMES[role]} ({', '.join(metrics_using(role))} do)"
        )
        raise UserError(f"{flag} {spec!r} is not used: {why}; drop {flag} or add such a metric with --metrics")
