"""Real small parts for tests and benchmarks: a tiny random model and an OpenAI-protocol server.

Nothing here is a fake: the model is a real ``Qwen2ForCausalLM`` (random weights) with a
real trained tokenizer, and the server speaks HTTP. Heavy imports stay inside functions.
"""
