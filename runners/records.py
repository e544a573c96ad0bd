"""What a run writes: one header and one record per question, both typed and versioned.

A run folder holds::

    RUN_DIR/run.json        RunHeader: how the run was made
    RUN_DIR/records.jsonl   one RunRecord per question, appended as answers arrive

Records are append-only and keyed by ``question_id``, so a killed run resumes by
skipping the ids already present, and shards of one run merge by concatenation.
Later stages (scoring, reports) read these records only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from kg.graph import node_ids
from kg.records import Question
from runners.errortypes import ErrorType

RUN_VERSION: Literal[1] = 1
HEADER_FILE = "run.json"
RECORDS_FILE = "records.jsonl"

Mode = Literal["zero-shot", "few-shot", "zero-shot-cot", "few-shot-cot"]
Strategy = Literal["generate", "next-token", "rank-options", "perplexity", "instruct-rank"]
Lang = Literal["auto", "zh", "en"]
"""The prompt language asked for: ``auto`` follows each benchmark's protocol
(:func:`runners.protocol.prompt_language`: CK12, CMMLU and C-Eval in Chinese, others the stem's)."""
MODES: tuple[Mode, ...] = get_args(Mode)


@dataclass(frozen=True)
class ModeInfo:
    """What a ``--mode`` means: every place that needs to know reads it from here, not from the name."""

    name: Mode
    few_shot: bool
    """Exemplars precede the question."""
    cot: bool
    """The model is asked to reason step by step (its chain of thought is what ``score`` scores)."""
    without_cot: Mode
    """The same mode without CoT: the run a CoT run is compared with."""


MODE_INFO: dict[Mode, ModeInfo] = {
    "zero-shot": ModeInfo("zero-shot", few_shot=False, cot=False, without_cot="zero-shot"),
    "zero-shot-cot": ModeInfo("zero-shot-cot", few_shot=False, cot=True, without_cot="zero-shot"),
    "few-shot": ModeInfo("few-shot", few_shot=True, cot=False, without_cot="few-shot"),
    "few-shot-cot": ModeInfo("few-shot-cot", few_shot=True, cot=True, without_cot="few-shot"),
}
"""Each mode's record, in the order the papers' tables list them."""


def mode_info(mode: str) -> ModeInfo:
    """The record of ``mode``; ``ValueError`` naming the choices for an unknown one."""
    try:
        return MODE_INFO[mode]  # type: ignore[index]
    except KeyError:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}") from None


STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
LANGS: tuple[Lang, ...] = get_args(Lang)
ParseStatus = Literal["ok", "unparsed", "failed", "skipped"]
"""``ok``: an answer was extracted; ``unparsed``: the output held no answer we could read;
``failed``: the backend gave no output (the error says why); ``skipped``: not scored (a type the strategy cannot score: next-token and rank-options score single choice only;
cloze is scored, unlike in CK12's released scorer)."""


class RunHeader(BaseModel):
    """How a run was made; written once when the run starts and checked when it resumes."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = RUN_VERSION
    model: str
    """Model id, local path or name from ``k12eval models list``."""
    backend: str
    """Backend name: vllm, transformers, openai or replay."""
    mode: Mode
    strategy: Strategy = "generate"
    rank_norm: str | None = None
    """How ``rank-options`` scored an option (``mean-token``, ``per-char``, ``sum``:
    :data:`runners.ranking.RankNorm`); ``None`` for other strategies, and in runs made before it was
    recorded (their sums were unnormalised)."""
    variant: str = "original"
    """original, shuffled, distractors or options-N."""
    language: Lang = "auto"
    """Language of the prompt templates; ``auto``: each benchmark's protocol (CK12, CMMLU: Chinese)."""
    sampling: dict[str, Any] = Field(default_factory=dict)
    """Sampling parameters as given to the backend (temperature, top_p, max_tokens, n, seed...)."""
    seed: int = 0
    selection: str = "all"
    """The named selection of the bank's questions (``--select``, :mod:`runners.selection`); runs made
    before it was recorded asked every question, which is ``all``."""
    template_hash: str = ""
    """Hash of the prompt templates and exemplars used."""
    data: dict[str, Any] = Field(default_factory=dict)
    """The question bank: path, format, CK12 variant, number of questions selected, filters."""
    backend_options: dict[str, Any] | None = None
    """The backend's options (``-B``) that can change an answer: secrets such as ``api_key`` and
    transport settings (concurrency, timeouts, retries) are left out; paths are absolute.
    ``None`` in runs made before it was recorded: unknown, so not checked on resume."""
    fewshot: dict[str, Any] | None = None
    """``shots`` and ``token_budget`` in few-shot modes (empty otherwise; the exemplars themselves are
    in ``template_hash``). ``None`` in runs made before it was recorded: unknown, not checked."""
    protocol: dict[str, Any] | None = None
    """The benchmark protocol the run followed (:func:`runners.protocol.protocol_record`): its name and
    source, the language, template set, shots, token budget, seed and strategy in force, the exemplar
    and judgment rules, and ``overrides``: what the run's options changed. ``None`` in runs made
    before it was recorded."""
    bank: str | None = None
    """Fingerprint of the question bank as the run's variant words it (ids and content, before filters,
    ``--limit`` and shards, so a run can grow and be sharded): the same questions anywhere are the same
    bank. ``None`` in runs made before it was recorded: unknown, not checked."""
    shard: str | None = None
    """``i/n`` when this run is one shard of a larger one."""
    packages: dict[str, str] = Field(default_factory=dict)
    """Versions of k12eval and the model libraries used."""
    weights: dict[str, Any] | None = None
    """The model's weights as loaded here (:mod:`runners.model_files`): its hub ``revision`` (the commit of
    the hub cache's snapshot), the ``files`` hashed with each one's sha256, and ``sha256`` (of those, one
    value to compare runs by). ``None`` for a model behind a server, a replay, or runs made before it."""
    batch: dict[str, Any] = Field(default_factory=dict)
    """The batch the first session used (:mod:`runners.batch_plan`): ``asked`` (a number or ``auto``),
    ``questions_per_call``, ``generated_together`` (a backend's micro-batch) and, for ``auto``, ``why``."""
    started_at: str = ""
    """ISO 8601 time the run was first started."""
    grader: str = "k12eval"
    """Whose verdict ``correct`` holds: ``k12eval`` (its extraction and grading), or ``harness``
    (``harness:METRIC,FILTER``): the verdict lm-eval recorded beside a replayed answer
    (:mod:`runners.backends.harness_verdicts`). Runs made before it was recorded: ``k12eval``."""
    harness: dict[str, Any] | None = None
    """For a replay of another harness's outputs (lm-eval, OpenCompass): its ``format``, its ``files``
    and the ``generation`` settings it recorded. The answers were made with those, not with ``sampling``
    (what k12eval would have asked); each record's ``harness`` holds its own prompt and settings.
    ``None`` for answers k12eval asked for itself."""


class RunRecord(BaseModel):
    """One question answered by one model in one mode."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = RUN_VERSION
    question_id: str
    nodes: dict[str, str]
    """Graph node ids keyed by kind: subject, level1, level2, question."""
    subject: str
    type: str
    """Question type value (single_choice, ...)."""
    stage: str | None = None
    variant: str = "original"
    prompt: str | list[dict[str, str]]
    """The prompt text, or the chat messages sent."""
    prompt_hash: str = ""
    output: str | None = None
    """Raw model output (the first sample when n > 1); untrusted text."""
    outputs: list[str] = Field(default_factory=list)
    """All samples when n > 1."""
    reasoning: str | None = None
    """The chain of thought a reasoning model's server returned apart from ``output`` (its
    ``reasoning_content``), for the first sample; untrusted text. ``score`` reads it as the chain."""
    extracted: list[str] | list[bool] | None = None
    """The answer read from the output, in the gold answer's normal form."""
    gold: list[str] | list[bool]
    """The gold answer, in the form of the question record (after re-lettering for variants)."""
    parse_status: ParseStatus = "ok"
    correct: bool | None = None
    """Exact correctness under the question type's rule; ``None`` when not scored."""
    partial: float | None = None
    """Share of statements / blanks right, for judgment and fill-in questions."""
    error_type: ErrorType | None = None
    """CK12's category of a wrong generated answer: ``illogical``, ``problem_solving`` or ``gibberish``
    (:mod:`runners.errortypes`); ``None`` when right, failed, scored without text, or recorded before it."""
    shots: int | None = None
    """How many exemplars the prompt showed (0 in zero-shot modes); ``None`` in records made before it was
    recorded."""
    option_scores: dict[str, float] | None = None
    """Log-probability of each option label or text (next-token and rank-options strategies); for
    perplexity, the mean log-probability per token of the prompt followed by the option (minus the log of
    its perplexity: the highest is the lowest perplexity)."""
    gold_rank: int | None = None
    """Rank of the gold option, 1 = most probable (rank-options, perplexity) or listed first (instruct-rank)."""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    """Why the (first sample's) generation ended, as the backend says: ``stop`` (end of sequence or a
    stop string), ``length`` (the token budget), ``loop`` (the loop guard stopped it: its last tokens
    repeated one piece, :mod:`runners.loop_guard`); ``None`` when not generated or not known."""
    latency_s: float | None = None
    error: str | None = None
    """Why the backend gave no output, when it did not."""
    harness: dict[str, Any] | None = None
    """For an answer replayed from another harness's file: ``file``, ``line`` or ``record`` (its own id),
    ``matched_by`` (the harness's position, or the text field that tied it to this question), and what
    the model was really asked: the harness's ``prompt`` and ``generation`` settings. ``prompt`` above is
    the one k12eval would have sent. lm-eval's own ``verdicts`` on the answer (``filter``, ``filtered``
    answer, ``metrics``) and its gold ``target``; under ``--grader harness``, ``graded`` (the metric and
    filter ``correct`` was read from) and ``k12eval_correct`` (k12eval's own verdict). ``None`` otherwise."""


def make_record(question: Question, prompt: str | list[dict[str, str]], **fields: Any) -> RunRecord:
    """A run record for ``question`` with its graph coordinates filled in."""
    text = prompt if isinstance(prompt, str) else "\n".join(m["content"] for m in prompt)
    return RunRecord(
        question_id=question.id,
        nodes=node_ids(question),
        subject=question.subject,
        type=question.type.value,
        stage=question.stage.value if question.stage else None,
        variant=question.variant,
        prompt=prompt,
        prompt_hash=hashlib.sha256(text.encode("utf-8")).hexdigest()[:16],
        gold=question.answer,
        **fields,
    )
