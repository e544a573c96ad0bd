"""Math-Shepherd-style rollouts: from each step's prefix, how many sampled continuations reach the gold answer.

Math-Shepherd (Wang et al., "Math-Shepherd: Verify and Reinforce LLMs Step-by-step without Human
Annotations", 2024, https://arxiv.org/abs/2312.08935) labels a step by completing the solution from
it several times: a step after which no completion reaches the gold answer is a dead end. Here
the steps up to and including step *i* go to any backend with ``n = k`` samples; each continuation's
final answer is read and graded as ``k12eval run`` reads and grades answers
(:func:`runners.extract.extract`, :func:`runners.grading.grade`), and step *i*'s share is the
fraction of its continuations graded correct. The first suspect is the first step whose share is 0
(:func:`first_dead_end`): the first step after which no continuation recovers. Wording of the
continuation request is data (``prompts/rollout.json``, English or Chinese by the problem's language).

Cost: ``k`` generations for every step of every solution with a gold answer
(:func:`generation_count`), all sent to the backend in one batch.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import resources

from kg.records import Knowledge, Option, Question, QuestionType, detect_language
from reasoning_metrics.reasons import reason
from runners.backends.base import Backend, GenerationRequest, SamplingParams
from runners.extract import extract
from runners.grading import grade

ROLLOUT_K = 4
"""Continuations per step prefix by default."""
ROLLOUT_SAMPLING = SamplingParams(temperature=0.7, top_p=0.95, max_tokens=512)
"""Sampled (the continuations must differ), with room to finish a school solution."""
NO_GOLD = reason("no_gold")
_UNMARKED = frozenset({"whole", "last-line"})
"""Extraction rules that take the whole output, or its last line, as the answer because nothing marks one."""


@dataclass(frozen=True)
class RolloutTask:
    """One solution to roll out: its question (with the gold answer), or ``None`` when it has none."""

    problem: str
    steps: Sequence[str]
    question: Question | None


@dataclass(frozen=True)
class RolloutResult:
    """The shares of one solution, or why it has none."""

    shares: list[float | None] | None
    """Per step, the share of continuations from its prefix that reach the gold answer (``None``:
    the backend answered nothing for that prefix); ``None`` when the solution was not rolled out."""
    reason: str | None = None
    """Why it was not rolled out (:data:`NO_GOLD`)."""


def gold_question(
    qid: str,
    problem: str,
    gold: Sequence[str],
    qtype: str = "fill_in_blank",
    options: Sequence[tuple[str, str]] = (),
) -> Question | None:
    """A question to grade continuations against, from a gold answer, the question type's name and
    the options as ``(label, text)`` pairs.

    ``None`` when the gold answer does not fit the type (a choice answer without its options, say).
    """
    try:
        return Question(
            id=qid,
            source="rollouts",
            subject="math",
            type=QuestionType(qtype),
            stem=problem,
            options=[Option(label=label, text=text) for label, text in options],
            answer=list(gold),
            knowledge=Knowledge(level1="-", level2="-"),
            language=detect_language(problem),
        )
    except ValueError:  # pydantic's ValidationError and an unknown type are both ValueErrors
        return None


def generation_count(tasks: Sequence[RolloutTask], k: int = ROLLOUT_K) -> int:
    """How many continuations :func:`rollout_shares` will ask for: ``k`` per step of each solution with a gold answer."""
    return k * sum(len(task.steps) for task in tasks if task.question is not None)


def _templates() -> dict[str, dict[str, str]]:
    text = resources.files("reasoning_metrics.verify").joinpath("prompts/rollout.json").read_text("utf-8")
    data: dict[str, dict[str, str]] = json.loads(text)
    return data


def rollout_prompt(problem: str, prefix: Sequence[str], chat: bool) -> str | list[dict[str, str]]:
    """The request to continue ``prefix`` (chat messages, or one text that a base model continues)."""
    template = _templates()[detect_language(problem)]
    shown = "\n".join(prefix)
    if not chat:
        return template["text"].replace("{problem}", problem).replace("{steps}", shown)
    user = template["user"].replace("{problem}", problem).replace("{steps}", shown)
    return [{"role": "system", "content": template["system"]}, {"role": "user", "content": user}]


def reaches_gold(question: Question, prefix: Sequence[str], continuation: str) -> bool:
    """Whether the continuation's final answer is the gold one.

    The answer is read from the continuation where it marks one (``The answer is``, 答案, ``\\boxed``...);
    when it marks none (the prefix had already reached the end), from the prefix followed by it; when
    neither marks one, the whole continuation is graded, as ``k12eval run`` grades an unmarked output.
    """
    found = extract(question, continuation)
    if found.answer is None or found.rule in _UNMARKED:
        joined = extract(question, "\n".join([*prefix, continuation]))
        if joined.answer is not None and joined.rule not in _UNMARKED:
            found = joined
    return grade(question, found.answer).correct


def rollout_shares(
    tasks: Sequence[RolloutTask],
    backend: Backend,
    *,
    k: int = ROLLOUT_K,
    params: SamplingParams | None = None,
) -> list[RolloutResult]:
    """Each solution's share of continuations reaching its gold answer, per step prefix, in one batch."""
    sampling = replace(params or ROLLOUT_SAMPLING, n=k)
    chat = bool(getattr(backend, "is_chat", True))
    requests, owners = [], []
    for t, task in enumerate(tasks):
        if task.question is None:
            continue
        for i in range(len(task.steps)):
            prompt = rollout_prompt(task.problem, task.steps[: i + 1], chat)
            requests.append(GenerationRequest(id=f"{t}:{i}", prompt=prompt, params=sampling))
            owners.append((t, i))
    shares: dict[int, list[float | None]] = {
        t: [None] * len(task.steps) for t, task in enumerate(tasks) if task.question is not None
    }
    by_id = {result.id: result for result in backend.generate(requests)} if requests else {}
    for (t, i), request in zip(owners, requests, strict=True):
        result = by_id.get(request.id)
        question = tasks[t].question
        if result is None or result.error or not result.texts or question is None:
            continue
        prefix = tasks[t].steps[: i + 1]
        shares[t][i] = sum(reaches_gold(question, prefix, text) for text in result.texts) / len(result.texts)
    return [RolloutResult(shares[t]) if t in shares else RolloutResult(None, NO_GOLD) for t in range(len(tasks))]


def first_dead_end(shares: Sequence[float | None]) -> int:
    """The first step after which no continuation reaches the gold answer (share 0), -1 if none.

    A prefix the backend did not answer (``None``) is skipped, not read as a dead end.
    """
    return next((i for i, share in enumerate(shares) if share is not None and share == 0), -1)
