"""The strong judges' options, shared by ``meta-eval`` and ``score``: a process reward model, rollouts.

Each loader turns what the user typed into a model object, or a one-line :class:`UserError` naming
the option; the heavy packages are imported only here, when the option is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from k12eval.cli._common import BACKEND_HELP, UserError

if TYPE_CHECKING:
    from reasoning_metrics.verify.rules.prm import StepRewardModel
    from runners.backends.base import Backend

PrmOpt = Annotated[
    str | None,
    typer.Option(
        "--prm",
        help="Process reward model of the Qwen2.5-Math-PRM kind (hub id or folder, e.g. "
        "Qwen/Qwen2.5-Math-PRM-7B). Enables the 'prm' detector and its flags.",
    ),
]
JudgeModelOpt = Annotated[
    str | None,
    typer.Option(
        "--judge-model",
        help="LLM judge: hub id, local path, catalogue name, API model name or "
        "recorded file (replay). Enables the 'judge' detector and its flags in 'aggregate'.",
    ),
]
JudgeBackendOpt = Annotated[str, typer.Option("--judge-backend", help=f"{BACKEND_HELP}.")]
JudgeOptionOpt = Annotated[
    list[str] | None,
    typer.Option("--judge-option", "-J", help="KEY=VALUE passed to the judge's backend (e.g. base_url=...)."),
]
JudgeMaxTokensOpt = Annotated[
    int, typer.Option("--judge-max-tokens", min=1, help="Tokens the judge may generate per solution.")
]
PrmBackendOpt = Annotated[str, typer.Option("--prm-backend", help="transformers or vllm.")]
PrmOptionOpt = Annotated[
    list[str] | None,
    typer.Option("--prm-option", help="KEY=VALUE for the PRM loader (dtype=bfloat16, batch_size=8, device=cuda...)."),
]


def load_prm_option(model: str, backend: str, options: dict[str, Any]) -> StepRewardModel:
    """The ``--prm`` model on ``--prm-backend``, or a :class:`UserError` saying why it did not load."""
    from kg.errors import InputError
    from reasoning_metrics.models.prm_model import PRM_BACKENDS, load_prm

    if backend not in PRM_BACKENDS:
        raise UserError(f"--prm-backend {backend!r}: choose one of {', '.join(PRM_BACKENDS)}")
    try:
        from k12eval.models import require_model

        return load_prm(require_model(model), backend, **options)
    except InputError:
        raise
    except Exception as exc:  # no such model, no network, not a PRM, an option the loader does not take...
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        raise UserError(f"--prm {model!r}: the {backend} backend could not load it ({reason})") from None


def load_backend_option(option: str, model: str, backend: str, options: dict[str, Any]) -> Backend:
    """The backend of a model that ``option`` names (``--judge-model``, ``--rollouts``), loaded like
    ``k12eval run`` loads one (catalogue names work for local backends), or a one-line :class:`UserError`."""
    from kg.errors import InputError
    from runners.backends import get_backend

    try:
        if backend not in ("openai", "replay"):
            from k12eval.models import require_model

            model = require_model(model)
        return get_backend(backend, model, **options)
    except InputError:
        raise
    except Exception as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        raise UserError(f"{option} {model!r}: the {backend} backend could not load it ({reason})") from None
