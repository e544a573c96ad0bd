"""Write a Qwen2 model folder (e.g. the tiny random one) as a float32 GGUF file, with ``gguf``.

Lets tests exercise the real GGUF loading and conversion path of the transformers backend
without downloading a GGUF model. Only what transformers' GGUF reader needs for ``qwen2``
is written: the architecture keys, the byte-level BPE tokenizer and the tensors.
"""

from __future__ import annotations

import json
from pathlib import Path

_LAYER_TENSORS = {
    "input_layernorm.weight": "attn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.q_proj.bias": "attn_q.bias",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.k_proj.bias": "attn_k.bias",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.v_proj.bias": "attn_v.bias",
    "self_attn.o_proj.weight": "attn_output.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}


def write_qwen2_gguf(model_dir: Path, path: Path) -> Path:
    """Write ``model_dir`` (a ``Qwen2ForCausalLM`` with tied embeddings) to ``path`` as GGUF F32."""
    import gguf
    from safetensors.numpy import load_file

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    spec = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    chat_template = (model_dir / "chat_template.jinja").read_text(encoding="utf-8")
    weights = load_file(str(model_dir / "model.safetensors"))

    writer = gguf.GGUFWriter(str(path), "qwen2")
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_head_count_kv(config["num_key_value_heads"])
    writer.add_rope_freq_base(float(config.get("rope_parameters", {}).get("rope_theta", 10000.0)))
    writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    vocab: dict[str, int] = dict(spec["model"]["vocab"])
    special = {token["content"]: token["id"] for token in spec["added_tokens"]}
    vocab.update(special)
    tokens = [token for token, _ in sorted(vocab.items(), key=lambda item: item[1])]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types([gguf.TokenType.CONTROL if token in special else gguf.TokenType.NORMAL for token in tokens])
    writer.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in spec["model"]["merges"]])
    writer.add_bos_token_id(config["bos_token_id"])
    writer.add_eos_token_id(config["eos_token_id"])
    writer.add_pad_token_id(config["pad_token_id"])
    writer.add_chat_template(chat_template)

    writer.add_tensor("token_embd.weight", weights["model.embed_tokens.weight"])
    writer.add_tensor("output_norm.weight", weights["model.norm.weight"])
    for layer in range(config["num_hidden_layers"]):
        for ours, theirs in _LAYER_TENSORS.items():
            writer.add_tensor(f"blk.{layer}.{theirs}", weights[f"model.layers.{layer}.{ours}"])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
