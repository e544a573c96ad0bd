"""From a batch of questions to run records: prompts, one backend call per batch, extraction, grading.

The four strategies:

- ``generate``: free generation, then :func:`runners.extract.extract` and :func:`runners.grading.grade`;
- ``next-token``: the log-probability of each option letter as the continuation of the prompt (CMMLU);
- ``rank-options``: the log-probability of each option's text as the continuation, normalised by
  ``--rank-norm`` (:func:`runners.ranking.normalised_score`: per token by default for Xiezhi, as its
  release); options are ranked, rank 1 the most probable (Xiezhi, the right way round);
- ``perplexity``: the perplexity of the whole text, the prompt (as plain text) followed by each option's
  text, scored from the first token; the lowest perplexity wins (CMMLU's perplexity strategy);
- ``instruct-rank``: the model is asked in words to rank every option and its reply is read as a ranking
  (:func:`runners.ranking.instructed_scores`; Xiezhi's API models).

The scoring strategies apply to single-choice questions; other types are recorded as ``skipped``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kg.errors import InputError, SettingError
from kg.jsonl import describe
from kg.records import Question, QuestionType
from runners.backends import generation_stream, protocol_role
from runners.backends._shared import clean_text, token_count
from runners.backends.base import (
    Backend,
    GenerationRequest,
    GenerationResult,
    LoglikelihoodRequest,
    SamplingParams,
)
from runners.backends.harness_verdicts import Grader, chosen_verdict, right_or_wrong
from runners.errortypes import error_type
from runners.extract import extract
from runners.fewshot import DEFAULT_BUDGET, ExemplarPool, fit_prompt
from runners.gen_kwargs import check_supported, sampling_record, with_gen_kwargs
from runners.grading import grade
from runners.loop_guard import LOOP_WINDOW
from runners.options import RunOptions
from runners.prompting import Prompt, as_chat, as_text
from runners.protocol import exemplar_pool, prompt_language
from runners.ranking import (
    gold_rank,
    instructed_scores,
    normalised_score,
    option_continuation,
    perplexity_score,
    pick_letter,
)
from runners.records import RunRecord, Strategy, make_record, mode_info
from runners.stopping import shielded
from runners.templates import TemplateSet, load_template_set

COT_MAX_TOKENS = 1024
ANSWER_MAX_TOKENS = 512
GENERATING: tuple[Strategy, ...] = ("generate", "instruct-rank")
"""The strategies whose questions the backend answers in text (``generate``); the others score options."""


def build_prompt(
    question: Question,
    options: RunOptions,
    pool: ExemplarPool | None,
    count_tokens: Callable[[str], int] | None,
    is_chat: bool,
) -> tuple[Prompt, str | list[dict[str, str]]]:
    """The prompt of ``question`` and what is sent: chat messages for chat models, text for base models.

    The one rule for a run and for ``run --dry-run``; ``count_tokens`` measures the few-shot budget
    (``None``: no budget applies).
    """
    lang = prompt_language(question, options.lang)
    budgeted = pool is not None and count_tokens is not None
    templates: str | TemplateSet = options.run_template_set
    if options.strategy == "instruct-rank":
        templates = load_template_set(options.run_template_set, lang).for_ranking()
    prompt = fit_prompt(
        question,
        options.mode,
        lang,
        pool,
        count_tokens=count_tokens if budgeted else None,
        budget=options.run_token_budget if budgeted else DEFAULT_BUDGET,  # unused without count_tokens
        shots=options.run_shots,
        template_set=templates,
    )
    if options.system_prompt is not None:
        prompt = replace(prompt, system=options.system_prompt)
    return prompt, as_chat(prompt) if is_chat else as_text(prompt)


@dataclass
class Answerer:
    """Everything a run needs to turn questions into records."""

    options: RunOptions
    backend: Backend
    sampling: SamplingParams
    pool: ExemplarPool | None
    template_hash: str

    @classmethod
    def create(cls, options: RunOptions) -> Answerer:
        """Load the backend and the exemplar pool; fix the sampling parameters."""
        from runners.backends.sampling import default_sampling

        backend_options = dict(options.backend_options)
        if options.chat is not None:
            backend_options.setdefault("chat", options.chat)
        model = options.model_path or options.model
        # Before the model loads: a pool the mode can show nothing of is refused at once.
        pool = exemplar_pool(options)
        backend = options.backend_instance or _load_backend(options, model, backend_options)
        # Known to the replay backend only: an attribute, not part of the protocol.
        check_grader(options, getattr(backend, "harness", None))
        check_replayed_kind(options, backend)
        is_chat = backend.is_chat
        base = default_sampling(is_chat)
        cot = mode_info(options.mode).cot
        sampling = replace(
            base,
            temperature=options.temperature if options.temperature is not None else base.temperature,
            top_p=options.top_p if options.top_p is not None else base.top_p,
            max_tokens=options.max_tokens or (COT_MAX_TOKENS if cot else ANSWER_MAX_TOKENS),
            n=options.samples,
            seed=options.run_seed,
            loop_guard=_loop_guard(options, backend),
        )
        sampling = with_gen_kwargs(sampling, options.gen_kwargs)
        check_supported(sampling, backend)
        return cls(options, backend, sampling, pool, _template_hash(options, pool))

    def sampling_dict(self) -> dict[str, Any]:
        """The sampling parameters as the run header records them."""
        return {
            "temperature": self.sampling.temperature,
            "top_p": self.sampling.top_p,
            "max_tokens": self.sampling.max_tokens,
            "n": self.sampling.n,
            "seed": self.sampling.seed,
            "chat": self.backend.is_chat,
            **sampling_record(self.sampling, self.options.gen_kwargs),
            "loop_guard": self.sampling.loop_guard,
        }

    def prompt_for(self, question: Question) -> tuple[Prompt, str | list[dict[str, str]]]:
        """The prompt object and what is sent: chat messages for chat models, text for base models."""
        count = self.backend.count_tokens if self.pool is not None else None  # zero-shot: no tokenizer needed
        return build_prompt(question, self.options, self.pool, count, self.backend.is_chat)

    def longest_sequence(self, questions: Sequence[Question]) -> int:
        """Tokens of the longest prompt among ``questions`` plus the token budget: what a GPU batch must hold.

        Chat messages are counted by their text plus a few tokens each for the template's markers.
        """
        longest = 1
        for question in questions:
            _, sent = self.prompt_for(question)
            texts = [sent] if isinstance(sent, str) else [m["content"] for m in sent]
            longest = max(longest, sum(self.backend.count_tokens(t) + 8 for t in texts))
        budget = self.sampling.max_tokens if self.options.run_strategy in GENERATING else 64
        return longest + budget

    def answer(self, questions: Sequence[Question]) -> list[RunRecord]:
        """Records for ``questions``, in their order."""
        by_id = {record.question_id: record for record in self.answer_stream(questions)}
        return [by_id[q.id] for q in questions]

    def answer_stream(self, questions: Sequence[Question]) -> Generator[RunRecord, None, None]:
        """A record for each of ``questions`` as soon as its answer is there (in the order answers finish),
        graded by the run's grader.

        Each record is handed over inside :func:`runners.stopping.shielded`: a SIGINT or SIGTERM
        waits until the caller has written it.
        """
        grader = Grader.parse(self.options.grader)
        with contextlib.closing(self._stream(questions)) as records:
            for record in records:  # suspended inside the stream's shield while the caller writes
                yield record if grader.name == "k12eval" else harness_graded(record, grader)

    def _stream(self, questions: Sequence[Question]) -> Generator[RunRecord, None, None]:
        if self.options.run_strategy not in GENERATING:
            records = self._score(questions)
            with shielded():
                yield from records
            return
        asked = list(questions)
        if self.options.run_strategy == "instruct-rank":  # a ranking of options: single choice only
            asked = [q for q in questions if q.type is QuestionType.SINGLE]
            error = "instruct-rank ranks single-choice options only"
            skipped = []
            for q in questions:
                if q.type is not QuestionType.SINGLE:
                    prompt, sent = self.prompt_for(q)
                    skipped.append(make_record(q, sent, parse_status="skipped", error=error, shots=prompt.shots))
            with shielded():
                yield from skipped
        prompts = [self.prompt_for(q) for q in asked]
        requests = [
            GenerationRequest(
                id=q.id,
                prompt=sent,
                params=replace(self.sampling, stop=self.sampling.stop + tuple(p.stop))
                if not self.backend.is_chat
                else self.sampling,
                texts=question_texts(q),
            )
            for q, (p, sent) in zip(asked, prompts, strict=True)
        ]
        for index, result in generation_stream(self.backend, requests):
            prompt, sent = prompts[index]
            yield self._record_generation(asked[index], prompt, sent, _clean(result))

    def _record_generation(
        self, question: Question, prompt: Prompt, sent: str | list[dict[str, str]], result: GenerationResult
    ) -> RunRecord:
        common: dict[str, Any] = {
            "finish_reason": result.finish_reasons[0] if result.finish_reasons else None,
            "shots": prompt.shots,
            "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens,
            "latency_s": result.latency_s,
            "harness": result.harness,
        }
        if result.error is not None or not result.texts:
            return make_record(question, sent, parse_status="failed", error=result.error or "no output", **common)
        output = result.texts[0]
        # What the model said, in the record whichever way it is read.
        common.update(output=output, outputs=result.texts if len(result.texts) > 1 else [], reasoning=result.reasoning)
        if self.options.run_strategy == "instruct-rank":
            return self._record_ranking(question, sent, output, common)
        extraction = extract(question, output)
        verdict = grade(question, extraction.answer)
        return make_record(
            question,
            sent,
            extracted=extraction.answer,
            parse_status=extraction.status,
            correct=verdict.correct,
            partial=verdict.partial,
            error_type=error_type(output, extraction.status, verdict.correct, common["finish_reason"]),
            **common,
        )

    def _record_ranking(
        self,
        question: Question,
        sent: str | list[dict[str, str]],
        output: str,
        common: dict[str, Any],
    ) -> RunRecord:
        """The record of a reply asked to rank the options: the ranking read from it, the gold option's rank."""
        scores = instructed_scores(output, {o.label: o.text for o in question.options})
        listed = [label for label, score in scores.items() if score > -(len(scores) + 1)]
        rank = gold_rank(scores, str(question.answer[0]))
        best = pick_letter(scores)  # None for a tie at the top, which ranks the gold option below 1
        return make_record(
            question,
            sent,
            extracted=[best] if listed and best else None,
            parse_status="ok" if listed else "unparsed",
            correct=rank == 1,
            option_scores=scores,
            gold_rank=rank,
            **common,
        )

    def _score(self, questions: Sequence[Question]) -> list[RunRecord]:
        records: list[RunRecord | None] = [None] * len(questions)
        requests: list[LoglikelihoodRequest] = []
        positions: list[int] = []
        sent_by_index: dict[int, str | list[dict[str, str]]] = {}
        shots: dict[int, int] = {}
        strategy = self.options.run_strategy
        norm = self.options.rank_norm or "sum"
        for i, question in enumerate(questions):
            prompt, sent = self.prompt_for(question)
            sent_by_index[i] = sent
            shots[i] = prompt.shots
            if question.type is not QuestionType.SINGLE:
                records[i] = make_record(
                    question,
                    sent,
                    parse_status="skipped",
                    error=f"{strategy} scores single choice only",
                    shots=prompt.shots,
                )
                continue
            context: str | list[dict[str, str]] = sent
            if strategy == "next-token":
                continuations = tuple(o.label for o in question.options)
            elif strategy == "perplexity":  # the whole text is scored: an empty context, the text as continuation
                context, text = "", as_text(prompt)
                continuations = tuple(text + o.text for o in question.options)
            else:
                continuations = tuple(option_continuation(context, o.text) for o in question.options)
            requests.append(
                LoglikelihoodRequest(
                    id=question.id, prompt=context, continuations=continuations, texts=question_texts(question)
                )
            )
            positions.append(i)
        start = time.perf_counter()
        results = self.backend.loglikelihood(requests) if requests else []
        latency = (time.perf_counter() - start) / len(requests) if requests else None  # each request's share
        for i, result in zip(positions, results, strict=True):
            question = questions[i]
            error = result.error
            if error is None and not all(map(math.isfinite, result.logprobs)):  # JSON cannot hold them
                error = f"{self.backend.name} gave scores that are not finite numbers: {result.logprobs!r:.120}"
            counted = strategy == "perplexity" or (strategy == "rank-options" and norm == "mean-token")
            if error is None and counted and len(result.token_counts) != len(result.logprobs):
                needs = "perplexity" if strategy == "perplexity" else "the mean-token rank norm"
                error = f"the {self.options.backend} backend gave no token counts: {needs} needs them"
            if error is not None:
                records[i] = make_record(
                    question,
                    sent_by_index[i],
                    parse_status="failed",
                    error=clean_text(error),
                    latency_s=latency,
                    shots=shots[i],
                    harness=result.harness,
                )
                continue
            logprobs = result.logprobs
            if strategy == "perplexity":
                logprobs = [perplexity_score(lp, n) for lp, n in zip(logprobs, result.token_counts, strict=True)]
            elif strategy == "rank-options":
                counts = result.token_counts or [0] * len(logprobs)  # only mean-token divides by them
                logprobs = [
                    normalised_score(lp, n, o.text, norm)
                    for lp, n, o in zip(logprobs, counts, question.options, strict=True)
                ]
            scores = {o.label: lp for o, lp in zip(question.options, logprobs, strict=True)}
            gold = str(question.answer[0])
            rank = gold_rank(scores, gold)
            # A tie at the top is no choice, so no letter is extracted: the first tied letter, A beside gold A, read
            # as right where the pessimistic rank counts it wrong (runners.ranking).
            best = pick_letter(scores)
            records[i] = make_record(
                question,
                sent_by_index[i],
                extracted=[best] if best else None,
                parse_status="ok",
                correct=rank == 1,
                option_scores=scores,
                gold_rank=rank,
                shots=shots[i],
                completion_tokens=sum(result.token_counts) or None,  # the option tokens scored
                latency_s=latency,
                harness=result.harness,
            )
        return [r for r in records if r is not None]


def harness_graded(record: RunRecord, grader: Grader) -> RunRecord:
    """``record`` with the harness's verdict as ``correct``, k12eval's kept as ``harness.k12eval_correct``.

    A value between 0 and 1 (an F1) is no right-or-wrong verdict: ``correct`` is then ``None`` and
    ``partial`` the value; a record the harness recorded no such verdict for is left ungraded.
    """
    if record.parse_status in ("failed", "skipped"):
        return record
    value, graded = chosen_verdict(record.harness, grader)
    harness = {**(record.harness or {}), "graded": graded, "k12eval_correct": record.correct}
    if value is None:
        return record.model_copy(update={"correct": None, "partial": None, "harness": harness})
    verdict = right_or_wrong(value)
    return record.model_copy(
        update={"correct": verdict, "partial": value if verdict is None else record.partial, "harness": harness}
    )


def check_grader(options: RunOptions, harness: dict[str, Any] | None) -> None:
    """Refuse ``--grader harness`` unless the backend replays files whose records carry the harness's verdicts
    under the metric and filter asked for."""
    grader = Grader.parse(options.grader)
    if grader.name == "k12eval":
        return
    found = (harness or {}).get("verdicts")
    if not isinstance(found, dict):
        raise SettingError(
            "grader",
            options.grader,
            lambda name: (
                "the answers must carry the harness's own verdicts, as lm-eval's samples_*.jsonl do "
                f"(replay them with {name('backend', 'replay')}); these have none"
            ),
        )
    for asked, kind in ((grader.metric, "metrics"), (grader.filter, "filters")):
        if asked is not None and asked not in found.get(kind, []):
            raise SettingError(
                "grader",
                options.grader,
                f"the harness's records have no {kind[:-1]} {asked!r} (they have: {', '.join(map(str, found.get(kind, [])))})",
            )


def check_replayed_kind(options: RunOptions, backend: Backend) -> None:
    """Refuse, before any record is written, a strategy that none of the replayed harness records can serve:
    choice scores only (lm-eval's ``cmmlu_*`` and ``ceval-valid_*`` are loglikelihood tasks) asked to generate,
    or generated text only asked to rank. Otherwise every question would fail alike, and asking again would too."""
    recorded = getattr(backend, "recorded_kinds", None)  # known to the replay backend only
    kinds = recorded() if callable(recorded) else frozenset()
    generates = options.run_strategy in GENERATING
    if not kinds or ("text" if generates else "scores") in kinds:
        return
    held, needed = ("choice scores, no generated text", "rank-options") if generates else ("generated text", "generate")
    where = getattr(backend, "path", "the replayed files")
    raise SettingError(
        "strategy",
        options.run_strategy,
        lambda name: f"the records in {where} hold {held}: replay them with {name('strategy', needed)}",
    )


def question_texts(question: Question) -> tuple[str, ...]:
    """The question's stem and option texts, as a request carries them for a replay's look-up."""
    return (question.stem, *(option.text for option in question.options))


def _clean(result: GenerationResult) -> GenerationResult:
    """The result with its texts and error made writable: this is where backend output enters a run.

    Every backend's text passes here, so no lone surrogate reaches extraction or the record
    file (where it would fail the write, lose the batch and fail every resume the same way).
    A plugin backend's answer of the wrong type fails its own request, not the batch; a token
    count that is not a count is dropped.
    """
    result.prompt_tokens = token_count(result.prompt_tokens)
    result.completion_tokens = token_count(result.completion_tokens)
    if result.error is not None:
        result.error = clean_text(str(result.error))
    if result.reasoning is not None:
        result.reasoning = clean_text(result.reasoning) if isinstance(result.reasoning, str) else None
    wrong = next((v for v in [*result.texts, *result.finish_reasons] if not isinstance(v, str)), None)
    if wrong is not None and result.error is None:
        result.texts, result.finish_reasons = [], []
        result.error = f"the backend answered {describe(wrong)} where a text belongs"
    result.texts = [clean_text(text) for text in result.texts if isinstance(text, str)]
    result.finish_reasons = [clean_text(reason) for reason in result.finish_reasons if isinstance(reason, str)]
    return result


def _loop_guard(options: RunOptions, backend: Backend) -> int:
    """The loop guard's window in force: the option's, else the default for a model run here (0 for others)."""
    local = protocol_role(type(backend)) == "local"
    if options.loop_guard and not local:
        raise SettingError(
            "loop_guard",
            options.loop_guard,
            f"the {options.backend} backend cannot stop an answer as it is generated; the loop guard applies to "
            "models run here (transformers, vllm)",
        )
    if options.loop_guard is not None:
        return options.loop_guard
    return LOOP_WINDOW if local else 0


def _load_backend(options: RunOptions, model: str, backend_options: dict[str, Any]) -> Backend:
    """The backend, or one :class:`InputError` line saying why the model could not be loaded.

    A missing optional package (``ImportError``) goes on to the CLI, which names how to install it.
    """
    from runners.backends import get_backend

    try:
        return get_backend(options.backend, model, **backend_options)
    except (InputError, ImportError):
        raise
    except Exception as exc:  # a broken folder, a missing tokenizer, out of memory: any of them, one line
        lines = str(exc).strip().splitlines()
        reason = f"{type(exc).__name__}: {lines[0].strip()[:300]}" if lines else type(exc).__name__
        raise SettingError(
            "model", options.model, f"the {options.backend} backend could not load it ({reason})"
        ) from None


def _template_hash(options: RunOptions, pool: ExemplarPool | None) -> str:
    from runners.prompting import template_hash
    from runners.templates import TemplateError

    parts = []
    for lang in ("zh", "en"):  # the languages the set has: a set in one language is hashed in that one
        try:
            parts.append(template_hash(options.run_template_set, lang))
        except TemplateError:
            continue
    if pool is not None:
        parts.append(hashlib.sha256("".join(e.fingerprint() for e in pool).encode("utf-8")).hexdigest()[:16])
    if options.system_prompt is not None:  # --system-prompt: the templates' system message replaced
        parts.append("system:" + hashlib.sha256(options.system_prompt.encode("utf-8")).hexdigest()[:16])
    return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()[:16]
