"""``k12eval kg``: import a question bank, count it, show its tree, export its graph."""

from __future__ import annotations

import json
import logging
import math
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from k12eval.cli._common import FORMATS_HELP, OwnOutput, PluginHelp, UserError, guarded, output_file

if TYPE_CHECKING:
    from kg.errors import Problem
    from kg.graph import KnowledgeGraph
    from kg.importers import ImportResult
    from kg.records import Question

app = typer.Typer(help="Build and inspect the knowledge graph of a question bank.", no_args_is_help=True)

PathArg = Annotated[
    Path,
    typer.Argument(
        help="Question bank: a file or folder (CK12, CMMLU, C-Eval, Xiezhi, GAOKAO-Bench, JSONL/CSV), or a benchmark's "
        "name or hf://ORG/NAME (k12eval data list)."
    ),
]
FormatOpt = Annotated[str | None, typer.Option("--format", "-f", help=f"{FORMATS_HELP}; detected if omitted.")]
VariantOpt = Annotated[str, typer.Option("--variant", help="CK12 release variant: original, shuffled or distractors.")]
MappingOpt = Annotated[
    Path | None, typer.Option("--mapping", help="Mapping file naming the columns of your own JSONL/CSV.")
]
TaxonomyOpt = Annotated[
    Path | None,
    typer.Option(
        "--taxonomy", help="Xiezhi discipline taxonomy (subjects_tree_chn.json); found beside the data if omitted."
    ),
]
SkipOpt = Annotated[bool, typer.Option("--skip-invalid", help="Skip bad records and report them instead of stopping.")]
SplitOpt = Annotated[
    str | None,
    typer.Option(
        "--split",
        help="Only this split (dev, val, test, train) of a bank that has splits; every split, each counted "
        "apart, if omitted.",
    ),
]


class _EchoHandler(logging.Handler):
    """Prints an importer's notes (e.g. C-Eval test files skipped) as ``warning: ...`` lines on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        typer.echo(f"warning: {record.getMessage()}", err=True)


EXPORTED = OwnOutput(
    "k12eval kg export",
    (re.compile(r'\A\{\s*"directed": '), re.compile(r'\A<\?xml[^\n]*\?>\s*<graphml [\s\S]*attr\.name="kind"')),
)
"""How the node-link JSON and the GraphML ``kg export`` writes begin (:func:`k12eval.cli._common.output_file`)."""
PAIRS = OwnOutput("k12eval kg overlap", (re.compile(r"\A\ufeff?id,other_id\r?\n"),))
"""How the pairs file ``kg overlap -o`` writes begins."""


@contextmanager
def _importer_notes() -> Iterator[None]:
    logger = logging.getLogger("kg.importers")
    handler = _EchoHandler(logging.WARNING)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


def _load(
    path: Path,
    fmt: str | None,
    variant: str,
    mapping: Path | None,
    skip_invalid: bool,
    taxonomy: Path | None = None,
    split: str | None = None,
) -> tuple[ImportResult, KnowledgeGraph]:
    from k12eval.banks import resolve_data
    from kg.graph import build_graph
    from kg.importers import load_questions
    from runners.bank import choose_split

    bank = resolve_data(path)
    with _importer_notes():
        result = load_questions(
            bank.path, fmt, variant=variant, mapping=mapping, taxonomy=taxonomy, skip_invalid=skip_invalid
        )
    result.questions = list(bank.in_scope(result.questions))
    if split is not None:
        result.questions = choose_split(result.questions, split, None)[0]
    _say_skipped(result.problems)
    return result, build_graph(result.questions)


def _say_skipped(problems: list[Problem]) -> None:
    """The records ``--skip-invalid`` left out, on stderr: how many per field, and the first five."""
    from kg.errors import left_out_text

    if problems:
        typer.echo(f"skipped {left_out_text(problems)}:", err=True)
        for reason, count in _by_field(problems).most_common():
            typer.echo(f"  {count:6d}  bad '{reason}'", err=True)
        for problem in problems[:5]:
            typer.echo(f"  e.g. {problem.skipped()}", err=True)


def _by_field(problems: list[Problem]) -> Counter[str]:
    """The records left out per field at fault (a whole file's records under the field it lacks)."""
    counts: Counter[str] = Counter()
    for problem in problems:
        if problem.records:  # a file whose records cannot be counted is named, not counted as 0 bad records
            counts[problem.field or "record"] += problem.records
    return counts


@contextmanager
def _reading(
    path: Path, fmt: str | None, variant: str, mapping: Path | None, skip_invalid: bool, taxonomy: Path | None
) -> Iterator[tuple[str, Iterator[Question], list[Problem]]]:
    """The bank's format, its questions one at a time (:func:`kg.importers.iter_questions`) and the list the
    skipped records are gathered in, said on stderr once read."""
    from k12eval.banks import resolve_data
    from kg.importers import detect_format, iter_questions

    problems: list[Problem] = []
    bank = resolve_data(path)
    with _importer_notes():
        name = fmt or detect_format(bank.path, mapping)
        yield (
            name,
            bank.in_scope(
                iter_questions(
                    bank.path,
                    name,
                    variant=variant,
                    mapping=mapping,
                    taxonomy=taxonomy,
                    skip_invalid=skip_invalid,
                    problems=problems,
                )
            ),
            problems,
        )
    _say_skipped(problems)


@app.command("stats", cls=PluginHelp)
@guarded
def stats(
    path: PathArg,
    fmt: FormatOpt = None,
    variant: VariantOpt = "original",
    mapping: MappingOpt = None,
    taxonomy: TaxonomyOpt = None,
    split: SplitOpt = None,
    skip_invalid: SkipOpt = False,
    selection: Annotated[
        str,
        typer.Option(
            "--select",
            help="Count a named selection only: all, or reasoning-subset (CK12 Table 2: math questions whose analysis "
            "has more than two steps), as run --select picks it.",
        ),
    ] = "all",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Count questions, subjects and knowledge points, by split, type, subject and stage, and the questions with
    CMMLU's analysed features (negation, sub-options) with 95% Wilson intervals, over the split a run scores."""
    from kg.counts import BankCounts, most_common
    from kg.errors import left_out, left_out_text
    from kg.graph import MIN_LEVEL2_QUESTIONS
    from kg.intervals import percent
    from reports.analyses import FEATURES, shares_of
    from runners.bank import ALL_SPLITS
    from runners.dryrun import terminal_safe
    from runners.protocol import protocol_for
    from runners.selection import SELECTIONS, select

    select([], selection)  # an unknown --select is refused before the bank is read
    chosen = SELECTIONS[selection]
    counts = BankCounts()
    by_split: Counter[str] = Counter()
    variants: Counter[str] = Counter()  # what the questions are (a shuffle_options folder: shuffled), not --variant
    hits: dict[str | None, Counter[str]] = {}  # per split: the feature counts
    features = list(FEATURES.items())
    # One pass, holding no question: a bank of a million questions is counted in the memory of its points.
    with _reading(path, fmt, variant, mapping, skip_invalid, taxonomy) as (name, questions, problems):
        for q in questions:
            if not chosen(q):
                continue
            if q.split is not None:
                by_split[q.split] += 1
            if split not in (None, ALL_SPLITS) and q.split != split:
                continue
            variants[q.variant] += 1
            counts.add(q)
            found = hits.get(q.split)
            if found is None:
                found = hits[q.split] = Counter()
            for feature, has in features:
                if has(q):
                    found[feature] += 1
    if split not in (None, ALL_SPLITS) and not counts.questions:
        held = ", ".join(f"{s} ({n})" for s, n in by_split.most_common()) or "none (its questions carry no split)"
        raise UserError(f"--split {split}: this bank has no {split} questions; its splits: {held}")
    protocol = protocol_for(name)
    # The features and the sparse points are over the questions a run scores: the asked split, else the benchmark's
    # evaluation split when the bank holds it (CMMLU's test, not test + dev), else every question.
    scored = split if split not in (None, ALL_SPLITS) else protocol.eval_split if protocol.eval_split in hits else None
    sparse = counts.sparse_level2(split=scored)
    featured = hits.get(scored, Counter()) if scored is not None else sum(hits.values(), Counter())
    of = by_split[scored] if scored is not None else counts.questions
    summary: dict[str, Any] = {
        "path": str(path),
        "format": name,
        "variant": ", ".join(variants) or variant,
        "select": selection,
        "split": split,
        "by_split": dict(by_split.most_common()),
        "evaluation_split": protocol.eval_split,
        "exemplar_split": protocol.exemplar_split,
        "questions": counts.questions,
        "subjects": len(counts.subjects),
        "level1": len(counts.level1),
        "level2": len(counts.level2),
        "by_type": most_common(counts.by_type),
        "by_subject": most_common(counts.by_subject),
        "by_stage": most_common(counts.by_stage),
        "by_difficulty": most_common(counts.by_difficulty),
        "invalid": left_out(problems)[0],
        "invalid_files": [p.skipped() for p in problems if p.whole_file],
        "warnings": counts.warnings,
        "placed_twice": counts.placed_twice,
        "invalid_by_field": dict(_by_field(problems)),
        "level2_under_10": len(sparse),
        "level2_under_10_of": counts.level2_in(scored),
        "features": shares_of(featured, of),
        "features_split": scored,
    }
    if sparse:
        names = ", ".join(terminal_safe("/".join(counts.names[n])) + f" ({c})" for n, c in sparse[:5])
        typer.echo(
            f"warning: {len(sparse)} of {counts.level2_in(scored)} level-2 point(s) have fewer than "
            f"{MIN_LEVEL2_QUESTIONS}{'' if scored is None else ' ' + scored} questions (CK12 keeps no fewer than {MIN_LEVEL2_QUESTIONS} a point; their accuracies are noisy), "
            f"e.g. {names}",
            err=True,
        )
    if as_json:
        # A share of no question is NaN, which JSON has not (jq and JSON.parse refuse the file): null.
        for share in summary["features"].values():
            share.update({k: None for k, v in share.items() if isinstance(v, float) and math.isnan(v)})
        typer.echo(json.dumps(summary, ensure_ascii=False, allow_nan=False))
        return
    label = "" if selection == "all" else f", --select {selection}"
    in_splits = f" in {len(by_split)} splits" if len(by_split) > 1 and split in (None, ALL_SPLITS) else ""
    typer.echo(f"{summary['questions']} questions{in_splits} ({name}, {summary['variant']}{label}) from {path}")
    if by_split:
        typer.echo(f"split: {_split_counts(by_split, protocol.eval_split, protocol.exemplar_split)}")
    typer.echo(f"{summary['subjects']} subjects, {summary['level1']} level-1 and {summary['level2']} level-2 points")
    for key in ("by_type", "by_subject", "by_stage", "by_difficulty"):
        listed = ", ".join(f"{k} {v}" for k, v in summary[key].items())
        typer.echo(f"{key.removeprefix('by_')}: {listed}")
        if key == "by_subject" and counts.placed_twice:
            typer.echo(
                f"  ({counts.placed_twice} question(s) labelled in two subjects count in each, as the benchmark's "
                f"scorer counts a question under every label: the subjects sum to {sum(counts.by_subject.values())})"
            )
    over = "" if scored is None else f" {scored}"
    for feature, share in summary["features"].items():
        if share["of"]:
            typer.echo(
                f"{feature.replace('_', '-')} (CMMLU's analysis): {share['n']} of {share['of']}{over} questions = "
                f"{percent(share['share'], 1)} % ({percent(share['low'], 1)}-{percent(share['high'], 1)} %, Wilson 95 %)"
            )
    if problems:
        typer.echo(f"invalid (skipped): {left_out_text(problems)}")


def _split_counts(by_split: Counter[str], evaluated: str | None, exemplars: str | None) -> str:
    """``test 11582 (scored by run), dev 335 (few-shot exemplars)``: each split apart, never one sum."""
    roles = {evaluated: "scored by run", exemplars: "few-shot exemplars"}
    order = sorted(by_split.items(), key=lambda item: (item[0] != evaluated, item[0] != exemplars, -item[1]))
    parts = [f"{name} {count}" + (f" ({roles[name]})" if name in roles else "") for name, count in order]
    if len(by_split) > 1 and evaluated is not None and evaluated in by_split:
        parts.append(f"run scores {evaluated} only ({by_split[evaluated]}) unless --split says otherwise")
    return ", ".join(parts)


@app.command("show", cls=PluginHelp)
@guarded
def show(
    path: PathArg,
    node: Annotated[
        str | None,
        typer.Argument(help="Node id (subject:数学), path (数学/函数) or question id; all subjects if omitted."),
    ] = None,
    fmt: FormatOpt = None,
    variant: VariantOpt = "original",
    mapping: MappingOpt = None,
    taxonomy: TaxonomyOpt = None,
    split: SplitOpt = None,
    skip_invalid: SkipOpt = False,
    depth: Annotated[int, typer.Option("--depth", help="Levels to show below the node (questions are level 3).")] = 2,
) -> None:
    """Print the tree under a node with the number of questions in each subtree."""
    _, graph = _load(path, fmt, variant, mapping, skip_invalid, taxonomy, split)
    try:
        root = graph.resolve(node) if node else None
    except KeyError as exc:
        raise UserError(str(exc.args[0])) from None
    several = len({q.split for q in graph.questions.values()}) > 1
    for level, node_id in graph.walk(root):
        if level > depth:
            continue
        data = graph.graph.nodes[node_id]
        if data["kind"] == "question":
            question = graph.questions[data["name"]]
            typer.echo(f"{'  ' * level}{node_id}  [{question.type.value}] {question.stem[:50]!r}")
        else:
            count = _count_by_split(graph.questions_under(node_id), several)
            typer.echo(f"{'  ' * level}{data['name']}  ({count})  {node_id}")


def _count_by_split(questions: list[Question], several: bool) -> str:
    """``328``, or in a bank of ``several`` splits ``test 323, dev 5``: each split counted apart (a run scores one:
    CMMLU's 5 dev exemplars a subject are no question it scores)."""
    if not several:
        return str(len(questions))
    splits = Counter(q.split or "no split" for q in questions).most_common()
    return ", ".join(f"{name} {n}" for name, n in splits) or "0"


@app.command("export", cls=PluginHelp)
@guarded
def export(
    path: PathArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file: .json (node-link) or .graphml.")],
    fmt: FormatOpt = None,
    variant: VariantOpt = "original",
    mapping: MappingOpt = None,
    taxonomy: TaxonomyOpt = None,
    split: SplitOpt = None,
    skip_invalid: SkipOpt = False,
) -> None:
    """Export the graph as node-link JSON or GraphML."""
    if out.suffix not in (".json", ".graphml"):
        raise UserError(f"{out}: the output must end in .json or .graphml")
    output_file(out, path, mapping, taxonomy, own=EXPORTED)
    _, graph = _load(path, fmt, variant, mapping, skip_invalid, taxonomy, split)
    from runners.files import atomic_write

    data, escaped = graph.export(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, data)  # whole or not at all: a kill mid-write leaves the last export as it was
    if escaped:
        typer.echo(
            f"warning: {out}: {escaped} text(s) hold characters XML cannot (NUL, ESC...), written as escapes "
            "(\\x00); a .json export keeps them exactly",
            err=True,
        )
    stats = asdict(graph.stats())
    typer.echo(f"wrote {out} ({graph.graph.number_of_nodes()} nodes, {stats['questions']} questions)")


@app.command("overlap", cls=PluginHelp)
@guarded
def overlap(
    path: PathArg,
    other: Annotated[Path, typer.Argument(help="The bank to look in (any format `kg stats` reads).")],
    fmt: FormatOpt = None,
    mapping: MappingOpt = None,
    other_format: Annotated[
        str | None, typer.Option("--other-format", help="Format of the other bank; detected if omitted.")
    ] = None,
    other_mapping: Annotated[
        Path | None, typer.Option("--other-mapping", help="Mapping file of the other bank (your own JSONL/CSV).")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="CSV of the matching pairs (id, other_id).")] = None,
    skip_invalid: SkipOpt = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Questions of a bank also in another: CMMLU's overlap check (stem and sorted options, punctuation
    and spaces removed, exact match)."""
    import pandas as pd

    from kg.overlap import find_overlap
    from reports.spreadsheet import csv_bytes
    from reports.stats import wilson_interval
    from runners.dryrun import terminal_safe
    from runners.files import atomic_write

    if out is not None:
        output_file(out, path, other, mapping, other_mapping, own=PAIRS)
    mine, _ = _load(path, fmt, "original", mapping, skip_invalid)
    theirs, _ = _load(other, other_format, "original", other_mapping, skip_invalid)
    found = find_overlap(mine.questions, theirs.questions)
    low, high = wilson_interval(found.matched_a, found.questions_a) if found.questions_a else (0.0, 0.0)
    share = found.matched_a / found.questions_a if found.questions_a else 0.0
    summary = {
        "path": str(path),
        "other": str(other),
        "questions": found.questions_a,
        "other_questions": found.questions_b,
        "matched": found.matched_a,
        "share": share,
        "share_lo": low,
        "share_hi": high,
        "pairs": len(found.pairs),
        "empty_keys": found.empty,
    }
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        # Escaped against formulas, and whole or not at all: a kill mid-write leaves the last file as it was.
        atomic_write(out, csv_bytes(pd.DataFrame(found.pairs, columns=["id", "other_id"])))
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False))
        return
    typer.echo(
        f"{found.matched_a} of {found.questions_a} question(s) of {terminal_safe(str(path))} "
        f"({100 * share:.1f} %, {100 * low:.1f}-{100 * high:.1f} %) are also in "
        f"{terminal_safe(str(other))} ({found.questions_b} questions)"
    )
    for mine_id, their_id in found.pairs[:10]:
        typer.echo(f"  {terminal_safe(mine_id)}  =  {terminal_safe(their_id)}")
    if len(found.pairs) > 10:
        typer.echo(f"  ... {len(found.pairs) - 10} more" + (f" in {out}" if out else " (--out writes them all)"))
