"""The strong judges' options, shared by ``meta-eval`` and ``score``: an LLM judge, a process reward model.

What they name is loaded by :mod:`k12eval.models.loading` (a model that does not load is one error naming
the option, :mod:`k12eval.cli._wording`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from k12eval.cli._common import BACKEND_HELP

PrmOpt = Annotated[
    str | None,
    typer.Option(
        "--prm",
        help="Process reward model of the Qwen2.5-Math-PRM kind (hub id or folder, e.g. "
        "Qwen/Qwen2.5-Math-PRM-7B; with --prm-backend openai, the name its server knows it by). "
        "Enables the 'prm' detector and its flags.",
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
PrmBackendOpt = Annotated[
    str,
    typer.Option(
        "--prm-backend",
        help="transformers, vllm (in this process) or openai (a vLLM server: 'vllm serve MODEL --runner pooling'; "
        "--prm is then its served model name, --prm-option base_url=http://HOST:8000/v1).",
    ),
]
PrmOptionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--prm-option",
        help="KEY=VALUE for the PRM loader (dtype=bfloat16, batch_size=8, device=cuda...; "
        "openai: base_url=..., api_key=..., concurrency=8).",
    ),
]
