"""A model per metric: keys checked, each metric scored with its own model, the header saying which."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kg.errors import SettingError
from reasoning_metrics.metric_table import resolve
from reasoning_metrics.permetric import GROUPS, assign_models, score_plan
from reasoning_metrics.records import Chain
from reasoning_metrics.scoring import load_models, score_chains
from reasoning_metrics.slots import ModelSlots

from .fakes import HashEncoder, RuleNLI
from .written_runs import score_run_composed, write_bank, write_run

CHAINS = [
    Chain("a", "Tom has 5 apples. He eats 2.", "Tom has 5 apples. He eats 2. So 3 are left.", "5 - 2 = 3 are left."),
    Chain("b", "A square has side 3. What is its area?", ["The side is 3.", "The area is 9."], "3 * 3 = 9.", "en"),
]
METRICS = ["faithfulness_step", "info_step", "reasoning_alignment", "hallucination", "source_consistency"]


class _Named(HashEncoder):
    def __init__(self, name: str, dim: int) -> None:
        super().__init__(dim)
        self.name = name


def test_the_reference_group_is_every_score_against_the_reference() -> None:
    assert "reasoning_alignment" in GROUPS["reference"] and "hallucination" in GROUPS["reference"]
    assert "faithfulness_step" not in GROUPS["reference"] and "info_chain" not in GROUPS["reference"]
    chosen = resolve(METRICS)
    assigned = assign_models({"reference": "x", "Faithfulness-Step": "y"}, chosen)
    assert assigned == {
        "reasoning_alignment": {"encoder": "x"},
        "hallucination": {"encoder": "x"},
        "faithfulness_step": {"encoder": "y"},
    }


def _documented_recipes() -> list[str]:
    """Every ``--model-for`` recipe for the paper the user reads: README, CLI help, docs/cli.md."""
    from k12eval.cli._score_models import ModelForOpt

    root = Path(__file__).resolve().parents[2]
    texts = [(root / name).read_text(encoding="utf-8") for name in ("README.md", "docs/cli.md")]
    texts.append(ModelForOpt.__metadata__[0].help)
    found = [m for text in texts for m in re.findall(r"--model-for\s+(\S+?)=all-mpnet-base-v2", text)]
    toml = re.findall(r"\[score\.model-for\]\n(\S+) = \"all-mpnet-base-v2\"", texts[0])
    return found + toml


def test_the_documented_paper_recipe_moves_reasoning_alignment_only() -> None:
    # CK12 (PAPERS.md): Reasoning Alignment with all-mpnet-base-v2, every other score with roscoe-512-roberta;
    # hallucination and redundancy also read the reference but must stay on the --embedder.
    recipes = _documented_recipes()
    assert len(recipes) >= 3, recipes
    for key in recipes:
        assigned = assign_models({key: "all-mpnet-base-v2"}, resolve(None))
        assert assigned == {"reasoning_alignment": {"encoder": "all-mpnet-base-v2"}}, key


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"bogus": "m"}, r"^bogus: unknown metric 'bogus'; name a metric .*or a group \(reference\)"),
        ({"perplexity_step": "m"}, r"^perplexity_step: perplexity_step is not among the metrics computed"),
        ({"reference": "m"}, r"^reference: no reference metric is among the metrics computed"),
        ({"alignment": "m"}, r"^alignment: reasoning_alignment is not among the metrics computed"),
        ({"info_step.nli": "m"}, r"^info_step.nli: info_step uses no nli model \(it uses encoder\)"),
        ({"info_step.bogus": "m"}, r"^info_step.bogus: unknown model role 'bogus'"),
        (
            {"faithfulness_token": "m"},
            r"uses encoder and token_embedder models; name one, as faithfulness_token.encoder=",
        ),
    ],
)
def test_bad_keys_are_named(given: dict[str, str], message: str) -> None:
    chosen = resolve(["faithfulness_step", "info_step", "faithfulness_token"])
    with pytest.raises(ValueError, match=message):
        assign_models(given, chosen)


@pytest.mark.parametrize(
    ("metrics", "given", "setting", "value", "message"),
    [
        (["faithfulness_step", "bogus"], None, "metrics", None, r"^unknown metric\(s\) bogus; choose from"),
        (["faithfulness_step"], {"alignment": "m"}, "metric_models", "alignment", r"^reasoning_alignment is not among"),
    ],
)
def test_a_plan_that_cannot_be_made_names_the_setting_not_a_flag(
    metrics: list[str], given: dict[str, str] | None, setting: str, value: str | None, message: str
) -> None:
    with pytest.raises(SettingError) as refused:
        score_plan(metrics, given)
    assert (refused.value.setting, refused.value.value) == (setting, value)
    assert re.search(message, refused.value.detail) and "--" not in str(refused.value)


def test_each_metric_is_scored_with_its_own_model_exactly_as_alone() -> None:
    base, own, nli = _Named("base", 64), _Named("own", 16), RuleNLI()
    mixed = score_chains(
        CHAINS, METRICS, encoder=base, nli=nli, metric_models={"reference": own}, cache=False, lang="en"
    )
    alone = {
        enc.name: score_chains(CHAINS, METRICS, encoder=enc, nli=nli, cache=False, lang="en")
        for enc in (_Named("base", 64), _Named("own", 16))
    }
    for k, record in enumerate(mixed):
        for name, value in record.scores.items():
            source = "own" if name in GROUPS["reference"] else "base"
            assert value == pytest.approx(alone[source][k].scores[name]), (name, source)
        assert list(record.scores) == METRICS  # in the order asked, whatever the plans
        assert record.models == {"encoder": "base", "nli": "rule-nli"}
        assert record.metric_models == {"reasoning_alignment": {"encoder": "own"}, "hallucination": {"encoder": "own"}}
        assert [s.source_similarity for s in record.steps] == [s.source_similarity for s in alone["base"][k].steps]
    assert alone["own"][0].scores["reasoning_alignment"] != alone["base"][0].scores["reasoning_alignment"]


def test_a_role_every_metric_replaces_is_not_loaded(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-encoder")
    plan = score_plan(["reasoning_alignment"], {"alignment": HashEncoder()})
    loaded = load_models(CHAINS, plan, ModelSlots(encoder=missing), "en")
    assert "encoder" not in loaded and set(loaded["metric_models"]) == {"reasoning_alignment.encoder"}


def test_the_header_records_each_metrics_model_and_resume_checks_it(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    models = {"encoder": _Named("base", 64), "nli": RuleNLI()}
    list(score_run_composed(run, models=models, metric_models={"alignment": _Named("own", 16)}, cache=False).records)
    header = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert header["metric_models"]["reasoning_alignment"] == {"encoder": {"en": "own", "zh": "own"}}
    assert header["metric_models"]["faithfulness_step"] == {"encoder": {"en": "base", "zh": "base"}}
    assert header["metric_models"]["source_consistency"] == {"nli": {"en": "rule-nli", "zh": "rule-nli"}}
    from kg.errors import InputError

    with pytest.raises(InputError, match="scored with other metric_models"):
        score_run_composed(run, models=models, cache=False)


def test_a_header_written_before_metric_models_still_resumes(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    models = {"encoder": _Named("base", 64), "nli": RuleNLI()}
    job = score_run_composed(run, models=models, cache=False, chunk_size=1)
    next(job.records)
    job.records.close()  # type: ignore[attr-defined]
    header = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    del header["metric_models"]  # as an older version wrote it
    (run / "scores.json").write_text(json.dumps(header), encoding="utf-8")
    assert score_run_composed(run, models=models, cache=False).already == 1
