"""Prompting, backends, answer extraction and resumable runs."""
