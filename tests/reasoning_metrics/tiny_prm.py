"""A random ``Qwen2ForProcessRewardModel`` (the Qwen2.5-Math-PRM architecture) saved to a folder.

The published checkpoints ship the class as remote code (``auto_map`` -> ``modeling_qwen2_rm.py``);
this folder does the same, with a module written here that has the published layout: a
``Qwen2Model`` under ``model.`` and a ``score`` head ``Linear(h, h) -> ReLU -> Linear(h, 2)`` on every
token, the parameter names vLLM's built-in ``Qwen2ForProcessRewardModel`` loads. The tokenizer is the
tests' trained byte-level BPE with ChatML, plus ``<extra_0>`` as a special token.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from runners.testing.tiny_model import EOS, build_tokenizer

MODELING = """
import torch
from torch import nn
from transformers import Qwen2Model, Qwen2PreTrainedModel


class Qwen2ForProcessRewardModel(Qwen2PreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.num_labels = config.num_labels
        self.model = Qwen2Model(config)
        self.score = nn.Sequential(
            nn.Linear(config.hidden_size, config.hidden_size),
            nn.ReLU(),
            nn.Linear(config.hidden_size, self.num_labels),
        )
        self.post_init()

    def forward(self, input_ids=None, attention_mask=None, **kwargs):
        hidden = self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        return (self.score(hidden),)
"""


def build_tiny_prm(folder: Path, *, hidden: int = 32, layers: int = 2, seed: int = 0) -> Path:
    """Write the random PRM (hidden ``hidden``, ``layers`` layers, 2 labels) and its tokenizer to ``folder``."""
    import torch
    from transformers import Qwen2Config

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(1024, 600)
    tokenizer.add_special_tokens({"additional_special_tokens": ["<extra_0>"]})
    tokenizer.save_pretrained(folder)
    eos = tokenizer.convert_tokens_to_ids(EOS)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=1,  # head size 32: the least vLLM's CPU kernels take
        num_key_value_heads=1,
        max_position_embeddings=2048,
        num_labels=2,
        initializer_range=0.5,  # far from 0.5 probabilities, so positions are told apart
        bos_token_id=eos,
        eos_token_id=eos,
        pad_token_id=eos,
        architectures=["Qwen2ForProcessRewardModel"],
        auto_map={"AutoModel": "modeling_qwen2_rm.Qwen2ForProcessRewardModel"},
    )
    (folder / "modeling_qwen2_rm.py").write_text(MODELING, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("tiny_modeling_qwen2_rm", folder / "modeling_qwen2_rm.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(seed)
    model = module.Qwen2ForProcessRewardModel(config)
    model.save_pretrained(folder)
    saved = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    saved["auto_map"] = {"AutoModel": "modeling_qwen2_rm.Qwen2ForProcessRewardModel"}
    saved["architectures"] = ["Qwen2ForProcessRewardModel"]
    (folder / "config.json").write_text(json.dumps(saved, indent=2), encoding="utf-8")
    return folder
