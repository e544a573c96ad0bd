"""Which learned combiner made a run's step probabilities, and the data it was fitted on, for the page's help text.

A score header records the combiner as ``score --combiner`` named it and a hash of its weights
(:func:`reasoning_metrics.combine.apply.fingerprint`), not what it was fitted on. The training sets
are read back from the combiner itself (``default``, or the ``combiner.json`` path as given) when it
is still there with the same weights; otherwise the page says they are not known rather than name
data another combiner was fitted on.
"""

from __future__ import annotations

from dataclasses import dataclass

from kg.errors import InputError


@dataclass(frozen=True)
class CombinerInfo:
    """What the report says of a run's combiner."""

    name: str
    """As ``score --combiner`` named it: ``default`` or a ``combiner.json`` path (untrusted text)."""
    recorded: str
    """The score header's whole entry (name and hash)."""
    training: tuple[str, ...] | None
    """The names of the sets it was fitted on; ``None`` when the combiner is no longer where it was named,
    or its weights changed since the scoring."""


def combiner_info(recorded: str) -> CombinerInfo:
    """The combiner a score header names (``recorded``), with its training sets when they can be read back."""
    from pathlib import Path

    from reasoning_metrics.combine import DEFAULT, load_combiner
    from reasoning_metrics.combine.apply import fingerprint, fingerprint_name

    named = fingerprint_name(recorded)
    name = named if named is not None else recorded
    training: tuple[str, ...] | None = None
    if named is not None and (name == DEFAULT or Path(name).is_file()):
        try:
            combiner = load_combiner(name)
        except InputError:  # changed into something that is not a combiner: its data is not known
            combiner = None
        if combiner is not None and fingerprint(name, combiner) == recorded:
            training = tuple(str(t.get("name", "?")) for t in combiner.training)
    return CombinerInfo(name=name, recorded=recorded, training=training)
