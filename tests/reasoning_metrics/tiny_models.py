"""Tiny random transformers models with tokenizers trained by ``tokenizers``, saved to folders.

No hub: each builder trains a small tokenizer on a few sentences, initialises a
model of the right architecture at random and saves both with ``save_pretrained``,
so the adapters load them exactly as they load a downloaded model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runners.testing.tiny_bert import wordpiece_tokenizer

CORPUS = [
    "Janet sells 16 - 3 - 4 = 9 duck eggs a day.",
    "She makes 9 * 2 = 18 dollars every day at the market.",
    "The answer is 18. So the total is 3 bolts.",
    "所以 x = 2 ， 因此 答案 是 B 。",
    "Premise and hypothesis may contradict each other.",
] * 4


def _wordpiece_tokenizer(folder: Path) -> Any:
    return wordpiece_tokenizer(folder, CORPUS, vocab_size=200, max_length=64)


def _bert_config(fast: Any, **extra: Any) -> Any:
    from transformers import BertConfig

    return BertConfig(
        vocab_size=len(fast),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        pad_token_id=fast.pad_token_id,
        **extra,
    )


def build_classifier(folder: Path, id2label: dict[int, str], seed: int = 0) -> Path:
    """A BERT sequence classifier whose config lists ``id2label`` (any order)."""
    import torch
    from transformers import BertForSequenceClassification

    torch.manual_seed(seed)
    fast = _wordpiece_tokenizer(folder)
    config = _bert_config(
        fast, num_labels=len(id2label), id2label=id2label, label2id={v: k for k, v in id2label.items()}
    )
    BertForSequenceClassification(config).eval().save_pretrained(folder)
    return folder


def build_encoder(folder: Path, seed: int = 0) -> Path:
    """A BERT encoder (token embeddings)."""
    import torch
    from transformers import BertModel

    torch.manual_seed(seed)
    fast = _wordpiece_tokenizer(folder)
    BertModel(_bert_config(fast)).eval().save_pretrained(folder)
    return folder


def build_causal_lm(folder: Path, n_positions: int = 64, seed: int = 0) -> Path:
    """A GPT-2 with a byte-level BPE tokenizer and a BOS/EOS token, as the reference's default LM."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    torch.manual_seed(seed)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(CORPUS, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        model_max_length=n_positions,
    )
    fast.save_pretrained(folder)
    config = GPT2Config(
        vocab_size=len(fast),
        n_positions=n_positions,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
    )
    GPT2LMHeadModel(config).eval().save_pretrained(folder)
    return folder
