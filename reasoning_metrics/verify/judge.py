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
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from kg.records import detect_language
from reasoning_metrics.verify._chinese import numeral_value
from runners.backends.base import Backend, GenerationRequest, LoglikelihoodRequest, SamplingParams


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


_BOXED = re.compile(r"\\boxed\s*\{\s*([^{}]*?)\s*\}")
_NUMBER = r"(-?\d+|[零一二两三四五六七八九十]+)"
_STEP = re.compile(rf"(?:\bstep|\bparagraph)\s*[_#]?\s*{_NUMBER}|第\s*{_NUMBER}\s*[步段]", re.IGNORECASE)
_ERROR_WORDS = r"(?:error|mistake|incorrect|wrong|flaw|错误|有误|出错|不正确)"
_ERROR_STEP = re.compile(
    rf"{_ERROR_WORDS}[^.。\n]{{0,40}}?(?:(?:\bstep|\bparagraph)\s*[_#]?\s*{_NUMBER}|第\s*{_NUMBER}\s*[步段])"
    rf"|(?:(?:\bstep|\bparagraph)\s*[_#]?\s*{_NUMBER}|第\s*{_NUMBER}\s*[步段])[^.。\n]{{0,40}}?{_ERROR_WORDS}",
    re.IGNORECASE,
)
_ANSWER = re.compile(r"(?:final answer|answer|答案)\s*(?:is|为|是|:|：)?\s*(-?\d+)", re.IGNORECASE)
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


def parse_first_error(text: str, n_steps: int, index_base: int = 1) -> int | None:
    """0-based first wrong step named in a judge's answer, -1 for "no error", ``None`` if unreadable.

    Read in this order: the last ``\\boxed{...}``; a step named next to an error
    word; "answer: N"; a no-error phrase; the last step named at all.
    """
    boxed = _BOXED.findall(text)
    if boxed:
        content = boxed[-1]
        found = re.search(_NUMBER, content)
        if found:
            return _index(_number(found.group(1)), n_steps, index_base)
        return -1 if _NO_ERROR.search(content) or content.strip() in ("", "无") else None
    for pattern in (_ERROR_STEP, _ANSWER):
        match = pattern.search(text)
        if match:
            return _index(_number(_first_group(match)), n_steps, index_base)
    if _NO_ERROR.search(text):
        return -1
    steps = _STEP.findall(text)
    if steps:
        return _index(_number(next(g for g in steps[-1] if g)), n_steps, index_base)
    return None


def judge_solutions(
    solutions: Sequence[tuple[str, Sequence[str]]],
    backend: Backend,
    *,
    template: JudgeTemplate | None = None,
    params: SamplingParams | None = None,
) -> list[JudgeVerdict]:
    """Ask ``backend`` for the earliest wrong step of every ``(problem, steps)``, in one batch."""
    params = params or SamplingParams(temperature=0.0, max_tokens=1024)
    requests = []
    templates = []
    for k, (problem, steps) in enumerate(solutions):
        chosen = template or load_template(detect_language(problem))
        templates.append(chosen)
        requests.append(GenerationRequest(id=str(k), prompt=render_prompt(problem, steps, chosen), params=params))
    results = backend.generate(requests)
    verdicts = []
    for (_, steps), chosen, result in zip(solutions, templates, results, strict=True):
        if result.error or not result.texts:
            verdicts.append(JudgeVerdict(None, "", result.error or "no output"))
            continue
        text = result.texts[0]
        verdicts.append(JudgeVerdict(parse_first_error(text, len(steps), chosen.index_base), text))
    return verdicts


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
