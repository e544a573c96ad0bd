"""Each benchmark's protocol, as its paper and released code ran it, chosen by the format a bank was read as.

One :class:`Protocol` record per bank format (:data:`PROTOCOLS`) names the prompt language, the
template set, the shots, the few-shot token budget, the seed, the exemplar rule, the judgment rule,
the strategy, the splits (the one a run scores, the one exemplars come from), the data variant and
how ranked options are scored. :func:`with_protocol_defaults` fills every run option the user left unset from
the bank's protocol; an option given (``--templates``, ``--shots``, ``--token-budget``, ``--seed``,
``--strategy``, ``--lang``, ``--split``, ``--variant``, ``--rank-norm``) overrides it (``--lang auto`` is the protocol's language,
:func:`prompt_language`), and :func:`protocol_record` is what ``run.json`` keeps:
the protocol's name, the values in force and which of them the user overrode.

Where the values come from (/work/shared/PAPERS.md and the released code):

- CK12: Chinese prompts for every subject, 5 shots of the same subject and type, 3 then 1 over
  1,024 tokens, free generation; judgment counted per statement (as its released scorer does, with
  k12eval's extraction: :mod:`runners.counting`; ``ck12-release`` is the released count itself). No splits.
- CMMLU: its own prompt, 5 dev questions of the subject, the longest dropped over 2,048 tokens
  (``max_length`` of its ``gen_prompt``); open models by the next-token letter. Scores ``test``,
  exemplars from ``dev`` (its ``data/{dev,test}``; lm-eval's ``cmmlu_<subject>`` tasks likewise).
- C-Eval: its own prompt (以下是中国关于{科目}考试的单项选择题), its 5 dev questions of the subject,
  open models by the next-token letter (its released local evaluator). Scores ``val`` (the test
  answers are not published; lm-eval's ``ceval-valid_<subject>``: ``validation_split: val``,
  ``fewshot_split: dev``), exemplars from ``dev``.
- Xiezhi: its own prompt in the stem's language (Chinese or English), at most 3 shots sharing
  labels with the question, 50 options a question (the file's 4 and 46 drawn with seed 42: the
  ``options-50`` variant), open models by ranking the options by the mean log-probability of their
  tokens (the release averages the loss). Scores ``test`` (the specialty and interdiscipline files),
  exemplars from ``train``.
- GAOKAO-Bench: its own prompt (``Bench/Obj_Prompt.json``: each file's ``prefix_prompt``, then the question as
  published) in Chinese, zero-shot, free generation read for 【答案】 (its ``Bench/bench_function.py``); no
  split: the release scores all its objective questions (its scorer weighs each by its ``score``, see
  docs/prompts.md).
- mapped (a user's bank): CK12's prompts and rules.

The papers scored open models by probability and asked API models in words (Xiezhi: "we ask them
to rank all given options through instructions", ``instruct-rank``; CMMLU extracted ChatGPT's letter
from its text): a scoring strategy is the default for backends of a local model only (their class's
``protocol_role``, :func:`runners.backends.protocol_role`), the protocol's ``api_strategy`` for one behind
an API (``openai``), ``generate`` for replayed answers and undeclared plugins, and
never anything but ``generate`` for a CoT mode.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from kg.importers import detect_format
from kg.records import Question
from runners.backends import protocol_role
from runners.counting import JudgmentRule
from runners.fewshot import ExemplarMatch, ExemplarPool, PoolRule, load_exemplar_pool
from runners.options import RunOptions
from runners.prompting import Language
from runners.ranking import RankNorm
from runners.records import Lang, Strategy, mode_info
from runners.templates import load_template_set


@dataclass(frozen=True)
class Protocol:
    """One benchmark's evaluation protocol: what a run of a bank of this format does unless told otherwise."""

    name: str
    """The benchmark (the bank format it applies to)."""
    language: Lang
    """Prompt language: ``zh`` for every question, or ``auto`` (the stem's language). CK12 asks its English-subject
    questions in Chinese too (the paper's prompts are all Chinese), and GAOKAO-Bench's released prompts are Chinese
    for its English papers."""
    template_set: str
    shots: int
    """Exemplars per few-shot prompt."""
    token_budget: int | None
    """Few-shot prompt budget in the model's tokens; ``None``: the template set's ``fewshot_budget``."""
    seed: int
    exemplar_rule: str
    """Which exemplars a few-shot prompt shows and what happens over the budget (words, for the record)."""
    judgment_rule: JudgmentRule
    strategy: Strategy
    """How open (local) models answer (see the module docstring)."""
    source: str
    """Where the protocol is written down."""
    api_strategy: Strategy = "generate"
    """How models behind an API (the ``openai`` backend) answer: Xiezhi asked them to rank the options in
    words (``instruct-rank``); the others generate."""
    eval_split: str | None = None
    """The split a run scores unless ``--split`` names another (CMMLU ``test``, C-Eval ``val``, Xiezhi
    ``test``); ``None``: the benchmark has no splits (CK12). A bank whose questions carry no split is
    scored whole."""
    exemplar_split: str | None = None
    """The split few-shot exemplars come from (``dev``; Xiezhi's ``train``): a pool that has splits gives
    only these, and never the split being scored."""
    exemplar_match: ExemplarMatch = "subject-type"
    """Which exemplars fit a question (:data:`runners.fewshot.ExemplarMatch`)."""
    variant: str = "original"
    """The data variant a run asks unless ``--variant`` names another (Xiezhi's 50 options: ``options-50``)."""
    rank_norm: RankNorm = "sum"
    """How ``rank-options`` scores an option (:data:`runners.ranking.RankNorm`)."""
    task_prefixes: tuple[str, ...] = ()
    """lm-evaluation-harness task-name prefixes of the benchmark's subjects (``ceval-valid_computer_network``),
    taken by ``--subjects`` besides the subject keys and Chinese names."""
    scorer_reads_answers: bool = False
    """The benchmark's released scorer reads every answer's text (GAOKAO-Bench's extraction): a report keeps
    each answer's output, not only a judgment question's."""


_CK12_EXEMPLARS = "5 of the question's subject and type; over the budget 3, then 1"
_CMMLU_EXEMPLARS = "the subject's dev questions; over the budget the longest dropped"

PROTOCOLS: dict[str, Protocol] = {
    "ck12": Protocol(
        "ck12", "zh", "ck12", 5, None, 0, _CK12_EXEMPLARS, "per-statement", "generate",
        "CK12 paper (AAAI 2024) and its released evaluator",
    ),
    "cmmlu": Protocol(
        "cmmlu", "zh", "cmmlu", 5, None, 0, _CMMLU_EXEMPLARS, "per-statement", "next-token",
        "CMMLU paper and its released src/mp_utils.py",
        eval_split="test", exemplar_split="dev", task_prefixes=("cmmlu_", "cmmlu-"),
    ),
    "ceval": Protocol(
        "ceval", "zh", "ceval", 5, None, 0, "the subject's dev questions; over the budget the longest dropped",
        "per-statement", "next-token", "C-Eval paper and its released code/evaluator_series",
        eval_split="val", exemplar_split="dev", task_prefixes=("ceval-valid_", "ceval-"),
    ),
    "xiezhi": Protocol(
        "xiezhi", "auto", "xiezhi", 3, None, 42,
        "up to 3 of the train split sharing at least two discipline labels with the question (all of them when "
        "it has one)",
        "per-statement", "rank-options",
        "Xiezhi paper (Gu et al. 2024) and its released Knowledge_Evaluator/xiezhi_evaluate.py", "instruct-rank",
        eval_split="test", exemplar_split="train", exemplar_match="shared-labels", variant="options-50",
        rank_norm="mean-token",
    ),
    "gaokao": Protocol(
        "gaokao", "zh", "gaokao", 5, None, 0,
        "none in the release (zero-shot only); a few-shot run takes the few-shot bank's questions, the longest dropped "
        "over the budget", "per-statement", "generate",
        "GAOKAO-Bench (Zhang et al. 2023): its Bench/Obj_Prompt.json prompts and Bench/objective_bench.py, "
        "as OpenCompass's configs/datasets/GaokaoBench run them", scorer_reads_answers=True,
    ),
    "mapped": Protocol(
        "mapped", "auto", "ck12", 5, None, 0, _CK12_EXEMPLARS, "per-statement", "generate",
        "a bank of the user's own: CK12's prompts and rules",
    ),
}  # fmt: skip
"""Bank format -> its protocol."""


def protocol_for(fmt: str) -> Protocol:
    """The protocol of a bank read as ``fmt`` (a user's mapped bank for a format not listed)."""
    return PROTOCOLS.get(fmt, PROTOCOLS["mapped"])


def prompt_language(question: Question, asked: str = "auto") -> Language:
    """The language to prompt ``question`` in: ``asked`` (``zh``/``en``), or for ``auto`` the :attr:`Protocol.language`
    of its benchmark (its ``source``), the stem's own where that is ``auto`` (Xiezhi, a user's bank)."""
    if asked in ("zh", "en"):
        return "zh" if asked == "zh" else "en"
    if asked != "auto":
        raise ValueError(f"unknown prompt language {asked!r}; expected auto, zh or en")
    language = protocol_for(question.source).language
    return question.language if language == "auto" else language


def protocol_budget(template_set: str) -> int:
    """The few-shot token budget of ``template_set`` (its ``fewshot_budget``); 1,024 when it cannot be read here
    (the run refuses an unreadable template set itself, naming it)."""
    for language in ("zh", "en"):
        try:
            return load_template_set(template_set, language).fewshot_budget
        except ValueError:  # TemplateError, or a user file that does not validate
            continue
    return 1024


def default_strategy(protocol: Protocol, options: RunOptions) -> Strategy:
    """The protocol's strategy where it applies: a backend whose class declares a ``local`` model (its
    ``api_strategy`` for one behind an ``api``, :func:`runners.backends.protocol_role`) and a mode that does
    not generate a chain; ``generate`` otherwise (replayed answers among them)."""
    if mode_info(options.mode).cot:
        return "generate"
    instance = options.backend_instance
    role = protocol_role(options.backend if instance is None else type(instance))
    if role == "local":
        return protocol.strategy
    return protocol.api_strategy if role == "api" else "generate"


def with_protocol_defaults(options: RunOptions) -> RunOptions:
    """``options`` with every unset protocol field filled from the bank's protocol (and the bank's format, once
    detected); :attr:`RunOptions.protocol` set to the record ``run.json`` keeps (:func:`protocol_record`)."""
    fmt = options.fmt or detect_format(options.data, options.mapping)
    protocol = protocol_for(fmt)
    template_set = options.template_set if options.template_set is not None else protocol.template_set
    filled = replace(
        options,
        fmt=fmt,
        template_set=template_set,
        shots=options.shots if options.shots is not None else protocol.shots,
        seed=options.seed if options.seed is not None else protocol.seed,
        token_budget=options.token_budget
        if options.token_budget is not None
        else protocol.token_budget or protocol_budget(template_set),
        strategy=options.strategy if options.strategy is not None else default_strategy(protocol, options),
        variant=options.variant if options.variant is not None else protocol.variant,
        rank_norm=options.rank_norm if options.rank_norm is not None else protocol.rank_norm,
    )
    return replace(filled, protocol=protocol_record(protocol, options, filled))


def protocol_record(protocol: Protocol, given: RunOptions, filled: RunOptions) -> dict[str, Any]:
    """What ``run.json`` says about the protocol: its name and source, the values in force, and
    ``overrides``: each field the user gave, with the protocol's value it replaced. ``split`` is the
    protocol's evaluation split or the one asked until the bank is read; :func:`with_scored_split` then
    sets the one scored. ``rank_norm`` is there when the run ranks options."""
    in_force: dict[str, Any] = {
        "language": filled.lang if filled.lang != "auto" else protocol.language,
        "template_set": filled.template_set,
        "shots": filled.shots,
        "token_budget": filled.token_budget,
        "seed": filled.seed,
        "strategy": filled.strategy,
        "split": filled.split if filled.split is not None else protocol.eval_split,
        "exemplar_split": protocol.exemplar_split,
        "variant": filled.variant,
    }
    asked: dict[str, Any] = {
        "language": None if given.lang == "auto" else given.lang,
        "template_set": given.template_set,
        "shots": given.shots,
        "token_budget": given.token_budget,
        "seed": given.seed,
        "strategy": given.strategy,
        "split": given.split,
        "variant": given.variant,
    }
    if filled.strategy == "rank-options":
        in_force["rank_norm"] = filled.rank_norm
        asked["rank_norm"] = given.rank_norm
    own = asdict(protocol) | {
        "strategy": default_strategy(protocol, given),  # the protocol's, for this backend
        "token_budget": protocol.token_budget or protocol_budget(protocol.template_set),
        "split": protocol.eval_split,
    }
    overrides = {
        key: {"protocol": own[key], "given": value}
        for key, value in asked.items()
        if value is not None and value != own[key]
    }
    return {
        "name": protocol.name,
        "source": protocol.source,
        **in_force,
        "exemplar_rule": protocol.exemplar_rule,
        "judgment_rule": protocol.judgment_rule,
        "overrides": overrides,
    }


def with_scored_split(options: RunOptions, split: str | None) -> RunOptions:
    """``options`` once the bank has said which split its questions are (:func:`runners.bank.choose_split`): ``split``
    is the one scored, and the protocol record names it rather than the benchmark's evaluation split (a C-Eval
    ``dev/`` folder alone is scored as dev, and ``run.json`` must not say val). Exemplars never come from it."""
    record = None if options.protocol is None else options.protocol | {"split": split}
    return replace(options, split=split, protocol=record)


def exemplar_pool(options: RunOptions) -> ExemplarPool | None:
    """The exemplars of a run's few-shot prompts (``--few-shot``) as the bank's protocol takes them: from its
    exemplar split when the pool has splits, never from the split being scored, matched to each question by
    the protocol's rule; read with the run's ``--skip-invalid`` and ``--taxonomy``. ``None`` without ``--few-shot``."""
    if options.few_shot is None:
        return None
    protocol = protocol_for(options.fmt or detect_format(options.data, options.mapping))
    rule = PoolRule(
        split=protocol.exemplar_split,
        scored=options.split if options.split is not None else protocol.eval_split,
        match=protocol.exemplar_match,
    )
    return load_exemplar_pool(
        options.few_shot,
        seed=options.run_seed,
        mode=options.mode,
        rule=rule,
        skip_invalid=options.skip_invalid,
        taxonomy=options.taxonomy,
        mapping=options.mapping,
    )
