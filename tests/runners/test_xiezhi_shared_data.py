"""Xiezhi's protocol on its published sample (../shared/data/xiezhi; skipped when absent): nothing is copied here."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.importers import load_questions
from runners.fewshot import ExemplarPool, fit_prompt
from runners.protocol import PROTOCOLS

pytestmark = pytest.mark.shared_data


def test_every_single_label_question_of_the_sample_gets_its_exemplars(shared_data: Path) -> None:
    # #26 item 1: single-label questions (19 of the 500, 4 %) got no exemplar under "share two labels".
    spec = load_questions(shared_data / "xiezhi" / "xiezhi_spec_chn.sample500.jsonl").questions
    train = load_questions(shared_data / "xiezhi" / "xiezhi_train_chn.jsonl").questions
    protocol = PROTOCOLS["xiezhi"]
    pool = ExemplarPool.from_questions(train, seed=protocol.seed, match=protocol.exemplar_match)
    single = [q for q in spec if len(q.extra["labels"]) == 1]
    assert len(single) >= 10
    shots = PROTOCOLS["xiezhi"].shots
    assert all(len(pool.select(q, shots)) == shots for q in single)
    prompt = fit_prompt(single[0], "few-shot", "zh", pool, shots=shots, template_set="xiezhi")
    assert prompt.shots == shots and prompt.text.count("Demonstration ") == shots
    # the paper's rule: every question of the Specialty sample has 3 disciplines or fewer
    assert {q.extra["xiezhi_set"] for q in spec} == {"specialty"}
    # the release's split, from the file names: the sample is of a test file, the pool the train file
    assert {q.split for q in spec} == {"test"} and {q.split for q in train} == {"train"}
