"""Why a score has no value: records carry reason codes, worded in both languages by the page and the command line
(#35 items 1 and 3: no flag in the library, no regex turning English back into Chinese)."""

from __future__ import annotations

import pytest

from k12eval.cli._wording import reason_text
from reasoning_metrics.reasons import WORDS, code_of, parse, reason, worded


@pytest.mark.parametrize("code", sorted(WORDS))
def test_every_code_is_worded_in_both_languages_without_naming_an_option(code: str) -> None:
    names, _, _ = WORDS[code]
    stored = reason(code, *(f"x{i}" for i in range(len(names))))
    assert parse(stored) == (code, {name: f"x{i}" for i, name in enumerate(names)})
    english, chinese = worded(stored), worded(stored, "zh")
    assert english and chinese and english != chinese
    assert "--" not in english + chinese and "{" not in english + chinese


def test_arguments_keep_colons_and_quotes_and_words_name_roles() -> None:
    stored = reason("not_loaded", "nli", "C:/models/x:y", "OSError: no 'config.json' here")
    assert code_of(stored) == "not_loaded"
    assert worded(stored) == "could not load nli model 'C:/models/x:y': OSError: no 'config.json' here"
    assert worded(stored, "zh") == "无法加载NLI（推理判断）模型：OSError: no 'config.json' here"
    assert (
        worded(reason("needs", "nli")) == "needs an NLI model"
        and worded(reason("needs", "judge")) == "needs a judge model"
    )
    assert worded(reason("no_model", "encoder", "zh"), "zh") == "没有用于中文文本的句子编码器"
    with pytest.raises(ValueError, match="takes 2 argument"):
        reason("no_model", "nli")


def test_text_that_is_no_code_is_its_own_english_and_has_no_chinese() -> None:
    legacy = "no nli model for en text (pass one)"  # a score file written before the codes
    assert parse(legacy) is None and worded(legacy) == legacy and worded(legacy, "zh") is None
    assert parse('no_model:["nli"]') is None and parse("no_model:{") is None  # a code with the wrong arguments


def test_the_command_line_adds_the_option_that_gives_what_is_missing() -> None:
    assert reason_text(reason("nli_not_needed")).endswith("none was given (pass --nli)")
    assert reason_text(reason("needs", "encoder")) == "needs a sentence encoder (--encoder)"
    assert reason_text(reason("no_model", "nli", "en")) == "no nli model for en text (pass one)"
    assert reason_text("not scored (too long: over the 5 s budget of a chain)").startswith("not scored")
