"""LLM judge: ask any backend, ProcessBench-style, for the earliest wrong step, and read its answer robustly.

Two ways to use a model:

* :func:`judge_solutions` (a chat or instruction model): one prompt per solution
  (wording in ``prompts/judge.json``, English or Chinese by the problem's
  language), all sent in one batch; the answer is read by :func:`parse_first_error`
  (``\\boxed{3}``, "step 3", "第3步", "-1", "no error" ...);
* :func:`prm_step_scores` (a process reward model, or any model with
  log-likelihoods): for each step, the probability that the model continues
  "is this step correct?" with the *good* rather than the *bad* word.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources

from kg.records import detect_language
from reasoning_metrics.verify._chinese import numeral_value
from runners.backends import generation_stream
from runners.backends.base import (
    Backend,
    GenerationRequest,
    GenerationResult,
    LoglikelihoodRequest,
    SamplingParams,
)
from runners.extraction.markers import JUDGE_ANSWER, JUDGE_BOXED

JUDGE_SAMPLING = SamplingParams(temperature=0.0, max_tokens=1024)
"""Greedy, with room to reason before the boxed answer."""


@dataclass(frozen=True)
class JudgeTemplate:
    """Prompt wording; ``{problem}``, ``{steps}``, ``{number}`` and ``{text}`` are filled in literally."""

    system: str
    user: str
    step: str
    index_base: int = 1
    """Number of the first step as shown to the model (1, or 0 for ProcessBench's own prompt)."""


@dataclass(frozen=True)
class JudgeVerdict:
    """What the judge said about one solution."""

    first_error: int | None
    """0-based index of the first wrong step, -1 for none, ``None`` when the answer could not be read."""
    raw: str
    """The model's text (untrusted)."""
    error: str | None = None
    """The backend's error, if it gave no answer."""


def load_template(lang: str = "en") -> JudgeTemplate:
    """The bundled template for ``lang`` (``en`` or ``zh``)."""
    data = json.loads(resources.files("reasoning_metrics.verify").joinpath("prompts/judge.json").read_text("utf-8"))
    if lang not in data:
        raise ValueError(f"no judge template for language {lang!r}; choose one of {', '.join(data)}")
    return JudgeTemplate(**data[lang])


def render_prompt(problem: str, steps: Sequence[str], template: JudgeTemplate) -> list[dict[str, str]]:
    """Chat messages asking for the earliest wrong step of ``steps``."""
    shown = "\n\n".join(
        template.step.replace("{number}", str(i + template.index_base)).replace("{text}", step)
        for i, step in enumerate(steps)
    )
    user = template.user.replace("{problem}", problem).replace("{steps}", shown)
    return [{"role": "system", "content": template.system}, {"role": "user", "content": user}]


_THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_MINUS = str.maketrans({"\u2212": "-", "\uff0d": "-", "\u2013": "-"})
_NUMBER = r"(-?\d+|[零一二两三四五六七八九十]+)"
_STEP = re.compile(rf"(?:\bstep|\bparagraph)\s*[_#]?\s*{_NUMBER}|第\s*{_NUMBER}\s*[步段]", re.IGNORECASE)
_ERROR_WORDS = r"(?:error|mistake|incorrect|wrong|flaw|错误|有误|出错|不正确)"
_ERROR_STEP = re.compile(
    rf"{_ERROR_WORDS}[^.。\n]{{0,40}}?(?:(?:\bstep|\bparagraph)\s*[_#]?\s*{_NUMBER}|第\s*{_NUMBER}\s*[步段])"
    rf"|(?:(?:\bstep|\bparagraph)\s*[_#]?\s*{_NUMBER}|第\s*{_NUMBER}\s*[步段])[^.。\n]{{0,40}}?{_ERROR_WORDS}",
    re.IGNORECASE,
)
_BARE = re.compile(rf"\s*(?:(?:step|paragraph)\s*)?{_NUMBER}\s*[.。]?\s*", re.IGNORECASE)
"""An answer that is only a step number (``-1``, ``3.``, ``Step 2``), as terse judges and PRMs give it."""
_NO_ERROR = re.compile(
    r"\bno (?:error|mistake)s?\b|\b(?:all|every) (?:the )?steps? (?:are|is) correct"
    r"|\bthe solution is (?:fully )?correct"
    r"|没有错误|无错误|全部正确|都正确|均正确|\bnone\b",
    re.IGNORECASE,
)


def _number(text: str) -> int | None:
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    value = numeral_value(text)
    return int(value) if isinstance(value, int) else None


def _index(shown: int | None, n_steps: int, index_base: int) -> int | None:
    if shown is None:
        return None
    if shown < 0 or (index_base == 1 and shown == 0):
        return -1
    index = shown - index_base
    return index if 0 <= index < n_steps else None


def _first_group(match: re.Match[str]) -> str:
    return next(g for g in match.groups() if g is not None)


def _boxed(text: str) -> list[str]:
    """Contents of every ``\\boxed{...}`` (nested braces allowed), LaTeX commands and braces removed."""
    found = []
    for match in JUDGE_BOXED.finditer(text):
        depth, end = 1, match.end()
        while end < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        if depth == 0:
            inner = text[match.end() : end - 1]
            found.append(re.sub(r"\\[A-Za-z]+|[{}]", " ", inner).strip())
    return found


def parse_first_error(text: str, n_steps: int, index_base: int = 1) -> int | None:
    """0-based first wrong step named in a judge's answer, -1 for "no error", ``None`` if unreadable.

    Reasoning inside ``<think>...</think>`` is ignored (unfinished reasoning is no answer). Then, in
    order: an answer that is only a step number; the last ``\\boxed{...}`` (its step number, or a
    no-error word); a step named next to an error word; "answer: N"; a no-error phrase; the last
    step named at all.
    A step number outside the solution is unreadable in a box and skipped elsewhere.
    """
    text = _THINKING.sub(" ", text).translate(_MINUS)
    bare = _BARE.fullmatch(text)
    if bare:
        return _index(_number(_first_group(bare)), n_steps, index_base)
    boxed = _boxed(text)
    if boxed:
        content = boxed[-1]
        found = re.search(_NUMBER, content)
        if found:
            return _index(_number(found.group(1)), n_steps, index_base)
        return -1 if _NO_ERROR.search(content) or content in ("", "无") else None
    for pattern in (_ERROR_STEP, JUDGE_ANSWER):
        for match in pattern.finditer(text):
            index = _index(_number(_first_group(match)), n_steps, index_base)
            if index is not None:
                return index
    if _NO_ERROR.search(text):
        return -1
    steps = _STEP.findall(text)
    if steps:
        return _index(_number(next(g for g in steps[-1] if g)), n_steps, index_base)
    return None


def judge_name(backend: Backend) -> str:
    """How records and the page name a judge: its backend and model (``openai:Qwen2.5-7B-Instruct``)."""
    return f"{getattr(backend, 'name', type(backend).__name__)}:{getattr(backend, 'model', '?')}"


def template_for(problem: str, template: JudgeTemplate | None = None) -> JudgeTemplate:
    """``template`` if given, else the bundled one in the problem's language."""
    return template or load_template(detect_language(problem))


def verdict_of(result: GenerationResult, n_steps: int, template: JudgeTemplate) -> JudgeVerdict:
    """The verdict in a backend's answer; a failed request is no verdict (``first_error`` ``None``)."""
    if result.error or not result.texts:
        return JudgeVerdict(None, "", result.error or "no output")
    text = result.texts[0]
    return JudgeVerdict(parse_first_error(text, n_steps, template.index_base), text)


def judge_solutions(
    solutions: Sequence[tuple[str, Sequence[str]]],
    backend: Backend,
    *,
    ids: Sequence[str] | None = None,
    template: JudgeTemplate | None = None,
    params: SamplingParams | None = None,
) -> list[JudgeVerdict]:
    """Ask ``backend`` for the earliest wrong step of every ``(problem, steps)``, in one batch.

    ``ids`` name the requests (the solutions' ids, so a replay file can answer them); positions otherwise.
    A backend that says it is not a chat model (``is_chat`` false) gets the messages as one text.
    """
    found = dict(judge_stream(solutions, backend, ids=ids, template=template, params=params))
    return [found[index] for index in range(len(solutions))]


def judge_stream(
    solutions: Sequence[tuple[str, Sequence[str]]],
    backend: Backend,
    *,
    ids: Sequence[str] | None = None,
    template: JudgeTemplate | None = None,
    params: SamplingParams | None = None,
) -> Iterator[tuple[int, JudgeVerdict]]:
    """``(index, verdict)`` of :func:`judge_solutions`, each as soon as the backend gives it
    (:func:`runners.backends.generation_stream`: one by one from a server, handed over shielded from signals)."""
    params = params or JUDGE_SAMPLING
    names = [str(k) for k in range(len(solutions))] if ids is None else [str(i) for i in ids]
    templates = [template_for(problem, template) for problem, _ in solutions]
    chat = bool(getattr(backend, "is_chat", True))
    requests = []
    for name, (problem, steps), chosen in zip(names, solutions, templates, strict=True):
        messages = render_prompt(problem, steps, chosen)
        prompt = messages if chat else "\n\n".join(m["content"] for m in messages) + "\n\n"
        requests.append(GenerationRequest(id=name, prompt=prompt, params=params))
    for index, result in generation_stream(backend, requests):
        yield index, verdict_of(result, len(solutions[index][1]), templates[index])


PRM_PROMPT = "{problem}\n\n{steps}\n\nIs the last step correct? Answer:"


def prm_step_scores(
    solutions: Sequence[tuple[str, Sequence[str]]],
    backend: Backend,
    *,
    good: str = " Yes",
    bad: str = " No",
    prompt: str = PRM_PROMPT,
) -> list[list[float | None]]:
    """Per solution, per step, P(good) / (P(good) + P(bad)) after the problem and the steps up to it.

    For a trained process reward model pass its own step-tag prompt and tokens
    (e.g. Math-Shepherd's ``" +"`` / ``" -"``); a step with no score has ``None``.
    """
    requests, owners = [], []
    for k, (problem, steps) in enumerate(solutions):
        for i in range(len(steps)):
            text = prompt.replace("{problem}", problem).replace("{steps}", "\n".join(steps[: i + 1]))
            requests.append(LoglikelihoodRequest(id=f"{k}:{i}", prompt=text, continuations=(good, bad)))
            owners.append((k, i))
    scores: list[list[float | None]] = [[None] * len(steps) for _, steps in solutions]
    for (k, i), result in zip(owners, backend.loglikelihood(requests), strict=True):
        if result.error or len(result.logprobs) != 2:
            continue
        lg, lb = result.logprobs
        top = max(lg, lb)
        scores[k][i] = math.exp(lg - top) / (math.exp(lg - top) + math.exp(lb - top))
    return scores
