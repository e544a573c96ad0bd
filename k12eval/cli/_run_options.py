"""The options of ``k12eval run``, declared once: the command's signature names them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from k12eval.cli._common import BACKEND_HELP, FORMATS_HELP

DataArg = Annotated[
    Path,
    typer.Argument(
        help="Question bank: a file or folder (any format `kg stats` reads), or a benchmark's name or hf://ORG/NAME "
        "(k12eval data list; found on this machine, fetched with k12eval data pull)."
    ),
]

PullOpt = Annotated[
    bool,
    typer.Option(
        "--pull",
        help="When the bank (or --few-shot) is a benchmark's name or hf://ORG/NAME that is not on this machine, fetch "
        "it first as `k12eval data pull` does (HF_ENDPOINT honoured); without it such a run stops, saying how to.",
    ),
]

ModelOpt = Annotated[str, typer.Option("--model", "-m", help="Hub id, local path or name from `k12eval models list`.")]

OutOpt = Annotated[
    Path | None, typer.Option("--out", "-o", help="Run folder; the same command resumes it. Not needed with --dry-run.")
]

BackendOpt = Annotated[str, typer.Option("--backend", "-b", help=f"{BACKEND_HELP}.")]

ModeOpt = Annotated[str, typer.Option(help="zero-shot, few-shot, zero-shot-cot or few-shot-cot.")]

VariantOpt = Annotated[
    str | None,
    typer.Option(
        help="original, shuffled, distractors (CK12's released files when present), circular or options-N. Default: "
        "the benchmark's protocol: options-50 for Xiezhi (the paper's 50 options; original is the file's 4), else "
        "original."
    ),
]

CircularOpt = Annotated[
    bool,
    typer.Option(
        "--circular",
        help="OpenCompass's CircularEval (--variant circular): each single-choice question asked once per rotation "
        "of its options (ABCD, BCDA, CDAB, DABC), right only if every rotation is; the summary gives the circular "
        "accuracy beside the plain one.",
    ),
]

SplitOpt = Annotated[
    str | None,
    typer.Option(
        help="The split to score: dev, val, test, train, or all. Default: the benchmark's evaluation split "
        "(CMMLU test, C-Eval val, Xiezhi test; CK12 and your own banks have none and are scored whole). "
        "run.json records it; few-shot exemplars never come from it."
    ),
]

TaxonomyOpt = Annotated[
    Path | None,
    typer.Option(
        help="Xiezhi discipline taxonomy (subjects_tree_chn.json or its folder). Default: discipline_taxonomy/ "
        "beside the data or up to three folders above it, as the release keeps it."
    ),
]

RankNormOpt = Annotated[
    str | None,
    typer.Option(
        "--rank-norm",
        help="How rank-options scores an option: mean-token (the mean log-probability of its tokens, as "
        "Xiezhi's release averages the loss), per-char (lm-eval's acc_norm: per character) or sum "
        "(unnormalised, lm-eval's acc; favours short options). Default: the protocol's (mean-token for "
        "Xiezhi, sum otherwise); run.json records it.",
    ),
]

StrategyOpt = Annotated[
    str | None,
    typer.Option(
        help="generate, next-token, rank-options, perplexity (CMMLU's: the lowest perplexity of the prompt "
        "followed by the option) or instruct-rank (Xiezhi's API models: asked in words to rank every option). "
        "Default: the benchmark's protocol outside CoT modes: for a local model (transformers, vllm) "
        "next-token for CMMLU and C-Eval, rank-options for Xiezhi; for the openai backend instruct-rank for "
        "Xiezhi; generate otherwise."
    ),
]

LangOpt = Annotated[
    str,
    typer.Option(
        help="Prompt language: zh, en, or auto (each benchmark's protocol: Chinese for CK12, CMMLU and C-Eval; otherwise the stem's language)."
    ),
]

FmtOpt = Annotated[str | None, typer.Option("--format", "-f", help=f"{FORMATS_HELP}; detected if omitted.")]

MappingOpt = Annotated[Path | None, typer.Option(help="Mapping file for your own JSONL/CSV.")]

SubjectsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--subjects",
        "-s",
        help="Only these subjects (repeat, or a comma list): the Chinese name (计算机网络), the bank's key "
        "(computer_network) or lm-eval's or OpenCompass's task name (ceval-valid_computer_network, cmmlu_agronomy, "
        "cmmlu-agronomy).",
    ),
]

TypesOpt = Annotated[
    list[str] | None, typer.Option("--types", "-t", help="Only these question types (repeat, or a comma list).")
]

LimitOpt = Annotated[
    float | None,
    typer.Option(
        help="At most N questions (after filters), or a fraction of them: 0.1 asks the first 10 % (rounded up), "
        "as lm-eval's --limit."
    ),
]

SelectOpt = Annotated[
    str,
    typer.Option(
        "--select",
        help="A named selection of the bank: all, or reasoning-subset (CK12 Table 2: math questions whose "
        "analysis has more than two steps). Part of the run's identity.",
    ),
]

SeedOpt = Annotated[
    int | None,
    typer.Option(
        help="Seed for variants, exemplar choice and sampling. Default: the benchmark's own "
        "(42 for Xiezhi, 0 otherwise); run.json records the one used."
    ),
]

ShardOpt = Annotated[str | None, typer.Option(help="Run shard i/n of the questions (merge with `k12eval merge`).")]

FewShotOpt = Annotated[Path | None, typer.Option("--few-shot", help="Exemplar bank for few-shot modes (a dev split).")]

ShotsOpt = Annotated[
    int | None,
    typer.Option(
        help="Exemplars per prompt. Default: the benchmark's protocol (5; Xiezhi 3). Over the budget CK12's "
        "templates fall back to 3, then 1; CMMLU's and Xiezhi's drop the longest."
    ),
]

TokenBudgetOpt = Annotated[
    int | None,
    typer.Option(
        help="Prompt budget in the model's tokens for few-shot. Default: the template set's (ck12 1,024; "
        "cmmlu 2,048, as CMMLU's released code); run.json records the one used."
    ),
]

TemplateSetOpt = Annotated[
    str | None,
    typer.Option(
        "--templates",
        help="Prompt template set: ck12, cmmlu, ceval, xiezhi, or a TOML file. Default: the bank's own (ck12 for CK12 "
        "and your own banks, cmmlu for CMMLU, ceval for C-Eval, xiezhi for Xiezhi); run.json's protocol says which "
        "protocol the run followed and what you overrode.",
    ),
]

ChatOpt = Annotated[
    bool | None, typer.Option("--chat/--base", help="Treat the model as a chat or base model; detected if omitted.")
]

TemperatureOpt = Annotated[float | None, typer.Option(help="Default: 0 for chat models, 0.8 for base models.")]

TopPOpt = Annotated[float | None, typer.Option(help="Default: 1 for chat models, 0.95 for base models.")]

MaxTokensOpt = Annotated[int | None, typer.Option(help="Generated tokens per answer (default 512, 1024 for CoT).")]

SamplesOpt = Annotated[int, typer.Option("--samples", "-n", help="Samples per question.")]

BatchSizeOpt = Annotated[
    str,
    typer.Option(
        help="Sequences a local model generates together (unless -B batch_size= sets it), also the questions "
        "per call of a backend that does not stream. auto: on a GPU the largest batch that fits in memory; on a "
        "CPU the batch a short measurement finds fastest (answers written as each finishes); 16 for a server. "
        "run.json records it."
    ),
]

LoopGuardOpt = Annotated[
    int | None,
    typer.Option(
        help="Stop an answer whose last N tokens repeat one piece, recorded as finish_reason loop (0: off). "
        "Default: 64 for a model run here (transformers, vllm); off for the others."
    ),
]

RetryFailedOpt = Annotated[
    bool,
    typer.Option(
        "--retry-failed",
        help="Ask again the questions whose requests failed; their failed records stay as history.",
    ),
]

SkipInvalidOpt = Annotated[
    bool,
    typer.Option(
        "--skip-invalid",
        help="Leave out the bank's invalid questions, naming each (file, line, field) on stderr and in run.json, "
        "instead of stopping; score and report skip them too.",
    ),
]

BackendOptionOpt = Annotated[
    list[str] | None,
    typer.Option("--backend-option", "-B", help="KEY=VALUE passed to the backend (e.g. base_url=..., dtype=...)."),
]

MaxFailuresOpt = Annotated[
    str,
    typer.Option(
        "--max-failures",
        help="Failed questions the run may hold and still exit 0: a count (3) or a share (5%). "
        "Over it, the command exits 1.",
    ),
]

AsJsonOpt = Annotated[bool, typer.Option("--json", help="Print summary.json to stdout (and nothing else there).")]

DryRunOpt = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Print the exact prompts of the first --limit questions (default 3) as the backend would receive "
        "them, then stop: no model is loaded and --out is not written.",
    ),
]

VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Log more (each request's retry, debug lines).")]

QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress; only warnings and errors.")]

# lm-eval users' habits (#34): whose verdict counts, the system prompt, generation settings, tracking.

GraderOpt = Annotated[
    str,
    typer.Option(
        "--grader",
        help="Whose verdict counts: k12eval (its extraction and grading), or harness (a replay of lm-eval's "
        "samples: the verdict lm-eval recorded, which reproduces its figure; harness:METRIC or "
        "harness:METRIC,FILTER picks one, e.g. harness:exact_match,flexible-extract). Part of the run's identity.",
    ),
]

SystemPromptOpt = Annotated[
    str | None,
    typer.Option(
        "--system-prompt",
        help="The system message of every prompt, instead of the template set's: TEXT, or @FILE to read it from a "
        "UTF-8 file (\"\" for none). Base models get it as the prompt's first paragraph. Part of the run's identity.",
    ),
]

GenKwargsOpt = Annotated[
    str | None,
    typer.Option(
        "--gen-kwargs",
        help="Generation settings as lm-eval's --gen_kwargs: key=value,key=value or a JSON object. temperature, top_p, "
        "top_k, max_gen_toks (max_tokens), until (stop: a text or a JSON list), do_sample, seed, presence_penalty, "
        "frequency_penalty, repetition_penalty, extra_body (a JSON object merged into each request, openai backend). "
        "Applied after --temperature, --top-p, --max-tokens; a setting the backend cannot apply is refused.",
    ),
]

WandbArgsOpt = Annotated[
    str | None,
    typer.Option(
        "--wandb-args",
        help="Send the run to Weights & Biases once over, as lm-eval's --wandb_args: project=...,name=...,entity=... "
        "(wandb.init's arguments; tags as a|b). WANDB_MODE=offline keeps it on disk. Needs k12eval[tracking].",
    ),
]

MlflowArgsOpt = Annotated[
    str | None,
    typer.Option(
        "--mlflow-args",
        help="Send the run to MLflow once over: tracking_uri=...,experiment=...,run_name=... (other keys become "
        "tags; the URI defaults to $MLFLOW_TRACKING_URI). Needs k12eval[tracking].",
    ),
]
