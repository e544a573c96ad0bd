"""Prompting, backends, answer extraction and resumable runs."""

__k12eval__ = True  # this folder is k12eval's own, not a PyPI namesake (k12eval._guard reads it)
