"""A BERT WordPiece tokenizer trained here with ``tokenizers``, saved to a folder.

The tests' tiny encoders and NLI models and the device check's BERT-shaped ones all use it;
Chinese is split into characters, as bert-base-chinese does. Heavy imports stay inside.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def wordpiece_tokenizer(folder: Path, corpus: Iterable[str], vocab_size: int, max_length: int) -> Any:
    """Train a lower-casing WordPiece on ``corpus``, with BERT's ``[CLS] A [SEP] B [SEP]`` template.

    Returns the ``PreTrainedTokenizerFast`` after saving it to ``folder``.
    """
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True, handle_chinese_chars=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(
        corpus, trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=list(SPECIAL_TOKENS))
    )
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=max_length,
    )
    fast.save_pretrained(folder)
    return fast
