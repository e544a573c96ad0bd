"""Real small parts for tests and benchmarks: a tiny random model, a BERT tokenizer trained here and an
OpenAI-protocol server.

Nothing here is a fake: the model is a real ``Qwen2ForCausalLM`` (random weights) with a
real trained tokenizer (:mod:`runners.testing.tiny_model`), the WordPiece tokenizer of the tests' and the
device check's BERT-shaped models is trained by ``tokenizers`` (:mod:`runners.testing.tiny_bert`), and the
server speaks HTTP. Heavy imports stay inside functions.
"""
