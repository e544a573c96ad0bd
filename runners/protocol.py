"""Each benchmark's own settings, used where the user gave none: the seed and the few-shot budget.

The run header records the values in force (``seed``, ``fewshot.token_budget``), so a run says
what it used whichever way it was chosen.

- seed: Xiezhi samples its 50 options once with seed 42 (its paper and release); 0 elsewhere.
- few-shot budget: the template set's ``fewshot_budget`` (CK12: 1,024 tokens; CMMLU's released
  code: 2,048), since the budget belongs with the template set's rule for going over it.
"""

from __future__ import annotations

from dataclasses import replace

from kg.importers import detect_format
from runners.options import RunOptions
from runners.templates import load_template_set

PROTOCOL_SEED: dict[str, int] = {"xiezhi": 42}
"""Bank format -> its documented seed; others use :data:`DEFAULT_SEED`."""
DEFAULT_SEED = 0
DEFAULT_BUDGET = 1024


def protocol_seed(fmt: str) -> int:
    """The seed a bank of format ``fmt`` is run with when none is given."""
    return PROTOCOL_SEED.get(fmt, DEFAULT_SEED)


def protocol_budget(template_set: str) -> int:
    """The few-shot token budget of ``template_set`` (its ``fewshot_budget``); 1,024 when it cannot be read here
    (the run refuses an unreadable template set itself, naming it)."""
    for language in ("zh", "en"):
        try:
            return load_template_set(template_set, language).fewshot_budget
        except ValueError:  # TemplateError, or a user file that does not validate
            continue
    return DEFAULT_BUDGET


def with_protocol_defaults(options: RunOptions) -> RunOptions:
    """``options`` with ``seed`` and ``token_budget`` filled in from the benchmark's protocol where unset."""
    seed = options.seed
    if seed is None:
        seed = protocol_seed(options.fmt or detect_format(options.data, options.mapping))
    budget = options.token_budget if options.token_budget is not None else protocol_budget(options.template_set)
    return replace(options, seed=seed, token_budget=budget)
