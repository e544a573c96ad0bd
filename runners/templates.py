"""Prompt template sets: the wording lives in ``runners/prompts/<name>.<language>.toml``, this module loads it.

A template set gives, per question type, the phrases of the protocol (the
instruction, the answer format), and one layout per mode that places them
around the question. ``{name}`` placeholders are filled from the question and
from the phrases; any other brace (LaTeX like ``\\underline{}``) is left as it is.
Templates are checked when loaded, so a typo in a placeholder fails at once with
the file and the key, not in the middle of a run.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kg.records import QuestionType
from runners.records import MODES

LAYOUT_KEYS = (*MODES, "exemplar", "exemplar-cot")
FIELDS = frozenset({"question", "stem", "options", "subject", "option_count", "letters", "exemplars"})
"""Placeholders filled from the question being asked."""
EXEMPLAR_FIELDS = frozenset({"index", "question", "answer", "analysis"})
"""Placeholders filled from one exemplar."""

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
RANK_PHRASES = {"rank_instruction": "instruction", "rank_fewshot_instruction": "fewshot_instruction"}
"""Phrases a set asks for a ranking with, and the phrase each replaces under ``--strategy instruct-rank``."""


class TemplateError(ValueError):
    """A template set is missing, malformed, or has no template for what was asked."""


class RenderSpec(BaseModel):
    """How the parts of a question and of an answer are written out."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    option: str = "{label}.{text}"
    option_joiner: str = "\n"
    question: str = "{stem}\n{options}"
    """The question body when it has options or statements."""
    cloze_blank: str = "{blank}. {options}"
    cloze_option_joiner: str = " "
    judgment_true: str = "T"
    judgment_false: str = "F"
    judgment_item: str = "{index}. {value}"
    cloze_item: str = "{index}. {letter}"
    item_joiner: str = " "
    letter_joiner: str = ""
    fill_joiner: str = "；"
    analysis_step: str = "{index}. {text}"
    analysis_joiner: str = "\n"
    number_words: list[str] = Field(default_factory=list)
    """Words for small option counts (index = count); larger counts are written as digits."""
    letter_range: str = "{first}-{last}"
    """How more than eight option letters are named (``A到N``)."""
    choice_answer: Literal["letter", "text"] = "letter"
    """How an exemplar's single-choice answer is shown: its letter (CK12, CMMLU) or its option's
    text (Xiezhi, whose options carry no letters and whose answer is ranked as text)."""


class TemplateSet(BaseModel):
    """One template set in one language, as read from its TOML file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    language: Literal["zh", "en"]
    description: str = ""
    fewshot_fallback: Literal["ck12", "drop-longest"] = "ck12"
    """Over the token budget: ``ck12`` tries 5, 3, then 1 shot; ``drop-longest`` drops the longest exemplar."""
    fewshot_budget: int = Field(default=1024, ge=1)
    """The few-shot prompt budget in the model's tokens when ``--token-budget`` is not given: CK12's
    1,024; CMMLU's released code fits the prompt in 2,048 (its ``max_length``)."""
    stop: list[str] = Field(default_factory=list)
    """Stop sequences that end a base model's answer before it writes the next example."""
    system: str = ""
    """System message for chat models; empty for none."""
    render: RenderSpec = Field(default_factory=RenderSpec)
    layout: dict[str, str]
    phrases: dict[str, str] = Field(default_factory=dict)
    subjects: dict[str, str] = Field(default_factory=dict)
    """Subject names as the prompt writes them (English sets translate 数学 to mathematics)."""
    types: dict[QuestionType, dict[str, str]]
    """Per question type, phrases that override or add to ``phrases``."""
    tasks: dict[str, dict[str, str]] = Field(default_factory=dict)
    """Per task, phrases that override its type's: a question's task is its ``extra["task"]``, the file of the
    release it came from (GAOKAO-Bench words an instruction for each of its files)."""

    @model_validator(mode="after")
    def _complete(self) -> TemplateSet:
        missing = [key for key in LAYOUT_KEYS if key not in self.layout]
        if missing:
            raise ValueError(f"[layout] lacks {', '.join(missing)}")
        unknown = sorted(set(self.layout) - set(LAYOUT_KEYS))
        if unknown:
            raise ValueError(f"[layout] has unknown keys {', '.join(unknown)}; expected {', '.join(LAYOUT_KEYS)}")
        for qtype in self.types:
            phrases = self.phrases_for(qtype)
            for mode in MODES:
                _check_placeholders(self.layout[mode], FIELDS | phrases.keys(), f"[layout] {mode} ({qtype.value})")
            for key in ("exemplar", "exemplar-cot"):
                _check_placeholders(self.layout[key], EXEMPLAR_FIELDS | phrases.keys(), f"[layout] {key}")
            for name, text in phrases.items():
                _check_placeholders(text, FIELDS - {"exemplars"}, f"phrase {name!r} ({qtype.value})")
        for task, phrases in self.tasks.items():
            for name, text in phrases.items():
                _check_placeholders(text, FIELDS - {"exemplars"}, f"phrase {name!r} (task {task})")
        return self

    def phrases_for(self, qtype: QuestionType, task: str | None = None) -> dict[str, str]:
        """The phrases for one question type: the shared ones, overridden by the type's own, then by the
        question's task's (:attr:`tasks`) when the set words that task."""
        if qtype not in self.types:
            supported = ", ".join(t.value for t in self.types)
            raise TemplateError(
                f"template set {self.name!r} ({self.language}) has no template for {qtype.value} questions; "
                f"it has: {supported}"
            )
        return {**self.phrases, **self.types[qtype], **self.tasks.get(task or "", {})}

    def supports(self, qtype: QuestionType) -> bool:
        """Whether this set has a template for ``qtype``."""
        return qtype in self.types

    def for_ranking(self) -> TemplateSet:
        """This set asking for a ranking of every option (``--strategy instruct-rank``): its
        ``rank_instruction`` and ``rank_fewshot_instruction`` phrases in place of ``instruction`` and
        ``fewshot_instruction``. A set without them cannot ask for one (:class:`TemplateError`)."""
        missing = [name for name in RANK_PHRASES if name not in self.phrases]
        if missing:
            raise TemplateError(
                f"template set {self.name!r} ({self.language}) has no {', '.join(missing)} phrase: "
                "the instruct-rank strategy needs a set that asks for a ranking (xiezhi)"
            )
        phrases = {**self.phrases, **{target: self.phrases[name] for name, target in RANK_PHRASES.items()}}
        return self.model_copy(update={"phrases": phrases})

    def hash(self) -> str:
        """A short, stable hash of every template and phrase (for the run header)."""
        canonical = json.dumps(self.model_dump(mode="json"), ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def fill(template: str, values: Mapping[str, str]) -> str:
    """Replace every ``{name}`` in ``template`` by ``values[name]`` in one pass (values are never re-read)."""

    def substitute(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise TemplateError(f"no value for placeholder {{{key}}} in {template[:60]!r}")
        return values[key]

    return _PLACEHOLDER.sub(substitute, template)


def _check_placeholders(template: str, allowed: frozenset[str] | set[str], where: str) -> None:
    unknown = sorted({m.group(1) for m in _PLACEHOLDER.finditer(template)} - set(allowed))
    if unknown:
        raise ValueError(f"{where} uses unknown placeholder(s) {', '.join('{' + u + '}' for u in unknown)}")


def available_template_sets() -> list[tuple[str, str]]:
    """``(name, language)`` of every bundled template set."""
    found = []
    for entry in resources.files("runners.prompts").iterdir():
        parts = entry.name.split(".")
        if len(parts) == 3 and parts[2] == "toml":
            found.append((parts[0], parts[1]))
    return sorted(found)


def load_template_set(name: str, language: str = "zh") -> TemplateSet:
    """A bundled template set by name (``ck12``, ``cmmlu``) or a user's TOML file by path."""
    if name.endswith(".toml") or "/" in name:
        return _load_file(Path(name))
    return _load_bundled(name, language)


@lru_cache(maxsize=32)
def _load_bundled(name: str, language: str) -> TemplateSet:
    resource = resources.files("runners.prompts") / f"{name}.{language}.toml"
    if not resource.is_file():
        names = ", ".join(f"{n} ({lang})" for n, lang in available_template_sets())
        raise TemplateError(f"no template set {name!r} in language {language!r}; bundled: {names}")
    return _parse(resource.read_text(encoding="utf-8"), f"{name}.{language}.toml")


def _load_file(path: Path) -> TemplateSet:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TemplateError(f"{path}: cannot read template set ({exc.strerror})") from exc
    return _parse(text, str(path))


def _parse(text: str, where: str) -> TemplateSet:
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TemplateError(f"{where}: not valid TOML ({exc})") from exc
    try:
        return TemplateSet.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(map(str, error["loc"])) or "(top level)"
        raise TemplateError(f"{where}, field '{field}': {error['msg']}") from exc
