"""Xiezhi's discipline taxonomy (门类 -> 一级学科 -> 二级学科) and placing a question's labels in it.

The taxonomy file is ``{门类: {一级学科: [二级学科, ...]}}``
(``discipline_taxonomy/subjects_tree_chn.json``; ``subjects_tree_eng.json`` is
the same tree in English and is read beside it when present). A few names sit
at two places (统计学 is a 一级学科 of 理学 and a 二级学科 of 应用经济学), so a
label alone may be ambiguous; the other labels of the question decide.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import Problem
from kg.jsonl import describe

FOLDER = "discipline_taxonomy"
TREE_FILES = ("subjects_tree_chn.json", "subjects_tree_eng.json")

Node = tuple[str, ...]
"""A taxonomy path: ``(门类,)``, ``(门类, 一级学科)`` or ``(门类, 一级学科, 二级学科)``."""


@dataclass
class Taxonomy:
    """Every discipline name and the node(s) it names."""

    files: list[Path] = field(default_factory=list)
    nodes: dict[str, list[Node]] = field(default_factory=dict)

    def add(self, node: Node) -> None:
        """Index ``node`` under its last name."""
        places = self.nodes.setdefault(node[-1], [])
        if node not in places:
            places.append(node)

    def place(self, labels: Sequence[str]) -> Node | None:
        """The node that agrees with most labels, the deepest among those; ``None`` if no label is known.

        Ties go to the earlier label, then to the taxonomy's own order.
        """
        wanted = set(labels)
        best: Node | None = None
        best_score = (0, 0)
        for label in labels:
            for node in self.nodes.get(label, []):
                score = (len(wanted.intersection(node)), len(node))
                if score > best_score:
                    best, best_score = node, score
        return best

    def further(self, labels: Sequence[str], home: Node) -> list[Node]:
        """The places beside ``home`` (:meth:`place`) that ``labels`` name in other 门类, one a 门类: for each label
        with no place in a 门类 already taken (历史学 beside 医学, 中医学), the node of that 门类 agreeing with most
        labels, the deepest among those. Xiezhi's released scorer counts a question under every label it
        carries (``Knowledge_Evaluator/conclude.py``), so a question labelled in two 门类 counts in both. A label
        that is also a place in a 门类 taken (统计学 of 理学, with 理学 among the labels) opens none."""
        wanted = set(labels)
        taken = {home[0]}
        found: list[Node] = []
        for label in labels:
            places = self.nodes.get(label, [])
            if not places or any(node[0] in taken for node in places):
                continue
            category = max(places, key=lambda node: (len(wanted.intersection(node)), len(node)))[0]
            candidates = [node for name in labels for node in self.nodes.get(name, []) if node[0] == category]
            found.append(max(candidates, key=lambda node: (len(wanted.intersection(node)), len(node))))
            taken.add(category)
        return found


LEVELS_UP = 3
"""How many folders above the data's folder the taxonomy is looked for: the release keeps it in
``Tasks/Knowledge/discipline_taxonomy/``, three above ``Benchmarks/test/xiezhi_spec_chn/xiezhi.v1.1.json``'s folder."""


def find_taxonomy(path: Path, explicit: Path | None) -> list[Path]:
    """The tree file(s) to read: ``explicit`` (a file, or a folder holding them), else in a ``discipline_taxonomy/``
    folder (or the tree files themselves) beside ``path`` or up to :data:`LEVELS_UP` folders above it, the nearest first."""
    if explicit is not None:
        if explicit.is_dir():
            inner = explicit / FOLDER if (explicit / FOLDER).is_dir() else explicit
            return [inner / name for name in TREE_FILES if (inner / name).is_file()]
        return [explicit]
    folder = path if path.is_dir() else path.parent
    for base in [folder, *folder.absolute().parents][: LEVELS_UP + 1]:
        for candidate in (base / FOLDER, base):
            files = [candidate / name for name in TREE_FILES if (candidate / name).is_file()]
            if files:
                return files
    return []


def load_taxonomy(files: list[Path]) -> Taxonomy | Problem:
    """Read the tree files into one index, or the Problem with the first bad file."""
    taxonomy = Taxonomy(files=list(files))
    for file in files:
        try:
            tree = json.loads(file.read_text(encoding="utf-8-sig"))
        except OSError as exc:
            return Problem(file, None, None, f"cannot read the Xiezhi taxonomy: {exc.strerror}")
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return Problem(file, getattr(exc, "lineno", None), None, f"the Xiezhi taxonomy is not valid JSON: {exc}")
        problem = _add_tree(taxonomy, tree, file)
        if problem is not None:
            return problem
    return taxonomy


def _add_tree(taxonomy: Taxonomy, tree: object, file: Path) -> Problem | None:
    shape = "expected {门类: {一级学科: [二级学科, ...]}}"
    if not isinstance(tree, dict):
        return Problem(file, None, None, f"{shape}, got {describe(tree)}")
    for category, firsts in tree.items():
        if not isinstance(firsts, dict):
            return Problem(file, None, category, f"{shape}; {category!r} holds {describe(firsts)}")
        taxonomy.add((category,))
        for first, seconds in firsts.items():
            if not isinstance(seconds, list) or not all(isinstance(s, str) for s in seconds):
                return Problem(file, None, first, f"{shape}; {first!r} must hold a list of names")
            taxonomy.add((category, first))
            for second in seconds:
                taxonomy.add((category, first, second))
    return None
