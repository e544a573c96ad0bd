"""k12eval: where a language model's knowledge and reasoning break down, knowledge point by knowledge point."""

__version__ = "0.1.0"
