"""The knowledge graph: subject -> level-1 point -> level-2 point -> question.

A ``networkx.DiGraph`` whose node ids are stable, readable strings::

    subject:数学
    l1:数学/函数
    l2:数学/函数/一次函数
    q:038c90a8f66b47ffaaee49484a283e85

A ``/`` or ``%`` inside a name is percent-escaped so ids split unambiguously.
Every node has ``kind`` (subject, level1, level2, question) and ``name``;
question nodes also carry type, stage, difficulty, category, path, source and
variant, so any aggregation can be sliced by them. Subjects carry ``group``
(the CK12 paper's arts / science split, or the source's category).
"""

from __future__ import annotations

import functools
import inspect
import io
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from kg.errors import InputError
from kg.records import FURTHER_PLACES, Question

KINDS = ("subject", "level1", "level2", "question")
MIN_LEVEL2_QUESTIONS = 10
"""CK12's rule: no fewer than 10 questions per level-2 knowledge point."""


@functools.lru_cache(maxsize=2**16)  # names repeat: a bank of a million questions has some thousands
def _esc(name: str) -> str:
    return name.replace("%", "%25").replace("/", "%2F")


def subject_id(subject: str) -> str:
    """Node id of a subject."""
    return f"subject:{_esc(subject)}"


def level1_id(subject: str, level1: str) -> str:
    """Node id of a level-1 knowledge point within its subject."""
    return f"l1:{_esc(subject)}/{_esc(level1)}"


def level2_id(subject: str, level1: str, level2: str) -> str:
    """Node id of a level-2 knowledge point within its level-1 point."""
    return f"l2:{_esc(subject)}/{_esc(level1)}/{_esc(level2)}"


def question_id(qid: str) -> str:
    """Node id of a question."""
    return f"q:{qid}"


def place_ids(subject: str, level1: str, level2: str) -> dict[str, str]:
    """The node ids of a place (a subject, its level-1 and its level-2 point), keyed by kind."""
    return {
        "subject": subject_id(subject),
        "level1": level1_id(subject, level1),
        "level2": level2_id(subject, level1, level2),
    }


def node_ids(question: Question) -> dict[str, str]:
    """The graph node ids of a question and its ancestors, keyed by kind."""
    k = question.knowledge
    return {**place_ids(question.subject, k.level1, k.level2), "question": question_id(question.id)}


def placements(question: Question) -> list[dict[str, str]]:
    """The node ids of every place ``question`` sits at (:func:`place_ids` of each of :func:`place_names`, with the
    question's): its own first, then each of ``extra["further_places"]``. A count by subject or knowledge point
    counts the question at each place, as Xiezhi's released scorer counts a question under every label it carries;
    a count of the whole bank, once."""
    own = question_id(question.id)
    return [{**place_ids(*names), "question": own} for names in place_names(question)]


def place_names(question: Question) -> list[tuple[str, str, str]]:
    """``(subject, level-1, level-2)`` names of every place of ``question`` (:func:`placements`), its own first."""
    own = (question.subject, question.knowledge.level1, question.knowledge.level2)
    further = question.extra.get(FURTHER_PLACES) or ()
    return [own, *((str(subject), str(level1), str(level2)) for subject, level1, level2 in further)]


def subjects_of(question: Question) -> list[str]:
    """The subjects ``question`` sits in (:func:`place_names`), its own first, each once: what a count by subject
    counts it under."""
    return list(dict.fromkeys(names[0] for names in place_names(question)))


def node_link_keywords() -> dict[str, str]:
    """The keyword that names node-link JSON's edge list ``edges``, as this networkx spells it: ``edges=`` since
    3.4, ``link=`` before (3.2 and 3.3 refuse ``edges=``; 3.4 warns about the old default ``links``).

    ``nx.node_link_graph(data, **node_link_keywords())`` reads an export back on any of them.
    """
    return {"edges": "edges"} if "edges" in inspect.signature(nx.node_link_data).parameters else {"link": "edges"}


@dataclass(frozen=True)
class NodeStats:
    """Counts over the questions under one node."""

    node: str
    kind: str
    name: str
    questions: int
    level1: int
    level2: int
    by_type: dict[str, int]
    by_stage: dict[str, int]
    by_difficulty: dict[str, int]
    by_subject: dict[str, int]


class KnowledgeGraph:
    """The graph plus the question records it was built from."""

    def __init__(self, graph: nx.DiGraph, questions: dict[str, Question]) -> None:
        self.graph = graph
        self.questions = questions
        """Question records by question id (not node id)."""

    def __len__(self) -> int:
        return len(self.questions)

    def nodes_of_kind(self, kind: str) -> list[str]:
        """All node ids of one kind, in insertion order."""
        if kind not in KINDS:
            raise ValueError(f"unknown node kind {kind!r}; expected one of {KINDS}")
        return [n for n, data in self.graph.nodes(data=True) if data["kind"] == kind]

    def children(self, node: str) -> list[str]:
        """Direct children of a node, sorted by name."""
        return sorted(self.graph.successors(node), key=lambda n: self.graph.nodes[n]["name"])

    def questions_by_point(self) -> dict[str, list[str]]:
        """Level-2 node id -> the ids of its questions, sorted (as :meth:`walk` lists question nodes)."""
        points: dict[str, list[str]] = {}
        for qid, q in self.questions.items():
            for place in placements(q):
                points.setdefault(place["level2"], []).append(qid)
        return {node: sorted(ids) for node, ids in points.items()}

    def questions_under(self, node: str) -> list[Question]:
        """Every question in the subtree of ``node`` (a question node gives itself)."""
        self._check(node)
        if self.graph.nodes[node]["kind"] == "question":
            return [self.questions[node[2:]]]
        return [self.questions[n[2:]] for n in nx.descendants(self.graph, node) if n.startswith("q:")]

    def path_of(self, qid: str) -> list[str]:
        """Node ids from the subject down to the question ``qid``."""
        question = self.questions.get(qid)
        if question is None:
            raise KeyError(f"no question with id {qid!r}")
        ids = node_ids(question)
        return [ids[k] for k in KINDS]

    def resolve(self, ref: str) -> str:
        """A node id from an id, a question id or a readable path like ``数学/函数``."""
        if ref in self.graph:
            return ref
        if question_id(ref) in self.graph:
            return question_id(ref)
        parts = [p for p in ref.split("/") if p]
        prefix = {1: "subject:", 2: "l1:", 3: "l2:"}.get(len(parts))
        if prefix is not None:
            node = prefix + "/".join(_esc(p) for p in parts)
            if node in self.graph:
                return node
        raise KeyError(f"no node {ref!r}; give a node id (subject:数学), a question id or a path (数学/函数)")

    def stats(self, node: str | None = None) -> NodeStats:
        """Counts over the subtree of ``node``, or of the whole graph."""
        if node is None:
            questions = list(self.questions.values())
            kind, name = "graph", "all"
            places = [place for q in questions for place in placements(q)]
        else:
            self._check(node)
            questions = self.questions_under(node)
            kind, name = self.graph.nodes[node]["kind"], self.graph.nodes[node]["name"]
            # A question at two places counts at those under this node only (its place in another 门类 is not here).
            places = [place for q in questions for place in placements(q) if node in place.values()]
        l1 = {place["level1"] for place in places}
        l2 = {place["level2"] for place in places}
        return NodeStats(
            node=node or "",
            kind=kind,
            name=name,
            questions=len(questions),
            level1=len(l1),
            level2=len(l2),
            by_type=_count(q.type.value for q in questions),
            by_stage=_count(q.stage.value if q.stage else "unknown" for q in questions),
            by_difficulty=_count(q.difficulty or "unknown" for q in questions),
            by_subject=_count(self.graph.nodes[place["subject"]]["name"] for place in places),
        )

    def sparse_level2(self, minimum: int = MIN_LEVEL2_QUESTIONS) -> list[tuple[str, int]]:
        """Level-2 points with fewer than ``minimum`` questions, as ``(node id, count)``, fewest first.

        CK12 builds its graph with no fewer than 10 questions per level-2 point
        (:data:`MIN_LEVEL2_QUESTIONS`): a point under it gives an accuracy too noisy to read.
        """
        counts = Counter(place["level2"] for q in self.questions.values() for place in placements(q))
        return sorted(((n, c) for n, c in counts.items() if c < minimum), key=lambda item: (item[1], item[0]))

    def walk(self, node: str | None = None, depth: int = 0) -> Iterator[tuple[int, str]]:
        """``(depth, node id)`` pairs of the tree under ``node`` (or every subject), depth-first."""
        roots = [node] if node else sorted(self.nodes_of_kind("subject"))
        for root in roots:
            self._check(root)
            yield depth, root
            for child in self.children(root):
                yield from self.walk(child, depth + 1)

    def export(self, out: Path) -> tuple[bytes, int]:
        """The bytes of the graph as node-link JSON (``.json``) or GraphML (``.graphml``), as the file ``out``
        holds it, and how many texts GraphML had to escape; the caller writes them (whole, as ``kg export`` does).

        XML cannot hold most control characters (NUL, ESC...), lone surrogates or U+FFFE/U+FFFF, even as
        character references: in GraphML each is written as its escape (``\\x00``, ``\\x1b``), so the file
        reads back; the JSON export keeps every text exactly.
        """
        if out.suffix == ".json":
            data = nx.node_link_data(self.graph, **node_link_keywords())
            return json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"), 0
        if out.suffix == ".graphml":
            graph, escaped = _xml_safe(self.graph)
            written = io.BytesIO()
            nx.write_graphml(graph, written, encoding="utf-8")
            return written.getvalue(), escaped
        raise ValueError(f"{out}: export to .json (node-link) or .graphml")

    def _check(self, node: str) -> None:
        if node not in self.graph:
            raise KeyError(f"no node {node!r} in the graph")


_NOT_IN_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(graph: nx.DiGraph) -> tuple[nx.DiGraph, int]:
    """A copy of ``graph`` whose ids and text attributes XML can hold, and how many texts were escaped.

    Two ids that become one are an :class:`InputError`: the copy would merge their nodes.
    """
    escaped = 0

    def text(value: Any) -> Any:
        nonlocal escaped
        if not isinstance(value, str) or not _NOT_IN_XML.search(value):
            return value
        escaped += 1
        return _NOT_IN_XML.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), value)

    names = {node: text(node) for node in graph.nodes}
    if len(set(names.values())) < len(names):
        raise InputError("two knowledge-point ids differ only in control characters; export to .json instead")
    safe = nx.DiGraph(**{key: text(value) for key, value in graph.graph.items()})
    safe.add_nodes_from((names[node], {k: text(v) for k, v in data.items()}) for node, data in graph.nodes(data=True))
    safe.add_edges_from(
        (names[a], names[b], {k: text(v) for k, v in data.items()}) for a, b, data in graph.edges(data=True)
    )
    return safe, escaped


def _count(values: Iterable[str]) -> dict[str, int]:
    return dict(Counter(values).most_common())


def build_graph(questions: Iterable[Question], *, question_nodes: bool = True) -> KnowledgeGraph:
    """Build the graph from question records. Attributes are scalars so GraphML can hold them.

    Without ``question_nodes`` the graph holds the knowledge points only (the questions are still in
    ``questions``; :meth:`KnowledgeGraph.questions_by_point` places them): a report over a million
    questions does not pay a graph node for each."""
    graph = nx.DiGraph()
    records: dict[str, Question] = {}
    for q in questions:
        node = question_id(q.id)
        for subject, level1, level2 in place_names(q):
            ids = place_ids(subject, level1, level2)
            if ids["subject"] not in graph:
                graph.add_node(ids["subject"], kind="subject", name=subject, group=q.group or "")
            if ids["level1"] not in graph:
                graph.add_node(ids["level1"], kind="level1", name=level1, subject=subject)
                graph.add_edge(ids["subject"], ids["level1"])
            if ids["level2"] not in graph:
                graph.add_node(ids["level2"], kind="level2", name=level2, subject=subject, level1=level1)
                graph.add_edge(ids["level1"], ids["level2"])
            if question_nodes:
                if node not in graph:
                    graph.add_node(node, **_question_attrs(q))
                graph.add_edge(ids["level2"], node)
        records[q.id] = q
    return KnowledgeGraph(graph, records)


def _question_attrs(q: Question) -> dict[str, Any]:
    return {
        "kind": "question",
        "name": q.id,
        "type": q.type.value,
        "stage": q.stage.value if q.stage else "",
        "difficulty": q.difficulty or "",
        "category": q.knowledge.category or "",
        "path": "-".join(q.knowledge.path),
        "source": q.source,
        "variant": q.variant,
        "group": q.group or "",
        "language": q.language,
    }
