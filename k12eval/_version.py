"""The version of k12eval, in a module of its own so that any part of the package can read it without
importing the package face (which re-exports :mod:`k12eval.api`, which imports the parts)."""

__version__ = "0.1.0"
