"""Build a randomly initialised Qwen2 chat model with its own trained tokenizer, saved to a folder.

No model hub is needed: the tokenizer is a byte-level BPE trained with ``tokenizers`` on a
small Chinese and English corpus, carries a ChatML chat template, and is padded with filler
tokens up to the model's vocabulary so that every id a random model can emit decodes.
The same builder makes the tests' tiny model and the benchmark's 0.5B-sized one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
EOS = "<|endoftext|>"
SPECIAL_TOKENS = (EOS, "<|im_start|>", "<|im_end|>")

_CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "Question: what is 3 + 4? Answer: 7. Let's think step by step.",
    "A linear function has the form y = kx + b, where k is the slope.",
    "Water boils at 100 degrees Celsius at sea level.",
    "下列说法正确的是哪一项？请选择正确答案。",
    "一次函数的图像是一条直线，斜率为k。",
    "水在一个标准大气压下的沸点是100摄氏度。",
    "答案：A。解析：根据题意，先求出方程的解，再代入验证。",
    "中国的首都是北京，长江是中国最长的河流。",
    "Options: A. 1 B. 2 C. 3 D. 4",
]


@dataclass(frozen=True)
class TinyConfig:
    """Shape of the random model. Head size (hidden / heads) must be at least 32 for vLLM on CPU."""

    hidden_size: int = 64
    num_hidden_layers: int = 2
    num_attention_heads: int = 2
    num_key_value_heads: int = 2
    intermediate_size: int = 128
    vocab_size: int = 1024
    max_position_embeddings: int = 2048
    tokenizer_vocab: int = 600
    """Size the BPE is trained to before filler tokens pad it up to ``vocab_size``."""
    initializer_range: float = 0.02
    """Std of the random weights; the tests' model uses a larger one so its next-token
    distributions are peaked and greedy choices are not near-ties."""
    seed: int = 0


QWEN25_05B = TinyConfig(
    hidden_size=896,
    num_hidden_layers=24,
    num_attention_heads=14,
    num_key_value_heads=2,
    intermediate_size=4864,
    vocab_size=151936,
    max_position_embeddings=32768,
    tokenizer_vocab=2000,
)
"""The architecture of Qwen/Qwen2.5-0.5B (random weights): about 494M parameters."""


def build_tiny_qwen2(folder: Path, config: TinyConfig = TinyConfig()) -> Path:
    """Write a random ``Qwen2ForCausalLM`` and its tokenizer to ``folder``; return the folder.

    Deterministic for a given ``config`` (weights from ``config.seed``).
    """
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(config.vocab_size, config.tokenizer_vocab)
    tokenizer.save_pretrained(folder)
    eos_id = tokenizer.convert_tokens_to_ids(EOS)
    im_end_id = tokenizer.convert_tokens_to_ids("<|im_end|>")

    model_config = Qwen2Config(
        vocab_size=config.vocab_size,
        hidden_size=config.hidden_size,
        intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_hidden_layers,
        num_attention_heads=config.num_attention_heads,
        num_key_value_heads=config.num_key_value_heads,
        max_position_embeddings=config.max_position_embeddings,
        tie_word_embeddings=True,
        initializer_range=config.initializer_range,
        bos_token_id=eos_id,
        eos_token_id=eos_id,
        pad_token_id=eos_id,
    )
    torch.manual_seed(config.seed)
    model = Qwen2ForCausalLM(model_config)
    model.generation_config = GenerationConfig(
        bos_token_id=eos_id, eos_token_id=[im_end_id, eos_id], pad_token_id=eos_id
    )
    model.save_pretrained(folder)
    return folder


def build_tokenizer(vocab_size: int, trained_vocab: int = 600) -> Any:
    """A byte-level BPE tokenizer (``PreTrainedTokenizerFast``) with ChatML tokens and template.

    Filler tokens (``fill<i>``) pad the vocabulary to exactly ``vocab_size`` ids.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=trained_vocab,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(_CORPUS * 4, trainer=trainer)
    spec = json.loads(core.to_str())
    vocab: dict[str, int] = spec["model"]["vocab"]
    if vocab_size < len(vocab):
        raise ValueError(f"vocab_size {vocab_size} is smaller than the trained tokenizer ({len(vocab)})")
    # Fillers go into the BPE vocabulary itself (no merge reaches them), not in the added-token
    # list, which every encode call scans.
    vocab.update({f"fill{i}": i for i in range(len(vocab), vocab_size)})
    return PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer.from_str(json.dumps(spec)),
        eos_token=EOS,
        pad_token=EOS,
        chat_template=CHAT_TEMPLATE,
        model_max_length=32768,
    )
