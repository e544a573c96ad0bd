"""Prompt template sets as data files: ``<name>.<language>.toml``, loaded by :mod:`runners.templates`."""
