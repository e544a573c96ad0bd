"""A run's figures sent to experiment trackers through their own libraries: Weights & Biases and MLflow.

``k12eval run --wandb-args project=k12,name=qwen-zs`` and ``--mlflow-args experiment=k12,run_name=qwen-zs``
(lm-eval's ``--wandb_args`` syntax: ``key=value,key=value``), or ``tracking={"wandb": {...}}`` in
:func:`k12eval.run`. Once the run is over (finished or stopped), each tracker gets one run holding:

- **config / params**: the run's identity from ``run.json`` (model, backend, mode, strategy, variant,
  grader, seed, sampling, the bank's path and fingerprint, the weights' sha256);
- **summary / metrics**: accuracy overall (with its Wilson interval), by question type and by subject,
  the counts by status, and every ``metric,filter`` value of ``results.json`` (lm-eval's shape);
- **files / artifacts**: ``run.json``, ``summary.json`` and ``results.json``.

The keys of ``--wandb-args`` go to ``wandb.init`` (``project``, ``entity``, ``name``, ``group``, ``tags``
as ``a|b``, ``mode``, ``dir``...); ``WANDB_MODE=offline`` keeps the run on disk (``wandb sync`` sends it
later). Those of ``--mlflow-args``: ``tracking_uri`` (else ``$MLFLOW_TRACKING_URI``), ``experiment``,
``run_name``, and any other key becomes a tag. Both libraries are optional (``pip install
'k12eval[tracking]'``); a tracker asked for but not installed is refused before the run starts, and a
tracker that fails at the end is one warning line: the run's folder is already written.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path
from typing import Any

from kg.errors import InputError

log = logging.getLogger(__name__)
TRACKERS = {"wandb": "wandb", "mlflow": "mlflow"}
"""Tracker name -> the module it needs."""
FILES = ("run.json", "summary.json", "results.json")


def parse_args(text: str | None, option: str) -> dict[str, str]:
    """``key=value,key=value`` (lm-eval's ``--wandb_args``) as a dict; an :class:`InputError` naming ``option``."""
    if text is None or not text.strip():
        return {}
    pairs: dict[str, str] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise InputError(f"{option} {text!r}: expected key=value,key=value (e.g. project=k12eval,name=run1)")
        pairs[key.strip()] = value.strip()
    return pairs


def check_trackers(tracking: dict[str, dict[str, str]]) -> None:
    """Refuse an unknown tracker, or one whose library is not installed, before the run starts."""
    for name in tracking:
        module = TRACKERS.get(name)
        if module is None:
            raise InputError(f"unknown tracker {name!r}; choose {', '.join(TRACKERS)}")
        if importlib.util.find_spec(module) is None:
            raise InputError(f"--{name}-args: {module} is not installed; pip install 'k12eval[tracking]'")


def run_figures(run_dir: Path) -> tuple[dict[str, Any], dict[str, float]]:
    """``(config, metrics)`` of a run folder, from its ``run.json``, ``summary.json`` and ``results.json``."""
    header = _read(run_dir / "run.json")
    summary = _read(run_dir / "summary.json")
    results = _read(run_dir / "results.json")
    data = header.get("data") or {}
    config = {key: header.get(key) for key in ("model", "backend", "mode", "strategy", "variant", "grader", "seed")}
    config |= {"sampling": header.get("sampling"), "bank": data.get("path"), "bank_fingerprint": header.get("bank")}
    config["weights_sha256"] = (header.get("weights") or {}).get("sha256")
    metrics: dict[str, float] = {}
    overall = summary.get("all") or {}
    for key in ("accuracy", "unparsed_rate"):
        if isinstance(overall.get(key), int | float):
            metrics[key] = float(overall[key])
    interval = overall.get("accuracy_interval")
    if isinstance(interval, list) and len(interval) == 2:
        metrics["accuracy_low"], metrics["accuracy_high"] = map(float, interval)
    for group in ("by_type", "by_subject"):
        for name, stats in (summary.get(group) or {}).items():
            if isinstance(stats, dict) and isinstance(stats.get("accuracy"), int | float):
                metrics[f"{group}/{name}/accuracy"] = float(stats["accuracy"])
    for status, count in (summary.get("status") or {}).items():
        metrics[f"status/{status}"] = float(count)
    for task, values in (results.get("results") or {}).items():
        for key, value in values.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                metrics[f"results/{task}/{key.replace(',', '/')}"] = float(value)  # MLflow refuses a comma
    return config, metrics


def log_run(run_dir: Path, tracking: dict[str, dict[str, str]]) -> None:
    """Send the run in ``run_dir`` to each tracker of ``tracking``; a tracker that fails is one warning."""
    if not tracking:
        return
    config, metrics = run_figures(run_dir)
    for name, args in tracking.items():
        try:
            (_wandb if name == "wandb" else _mlflow)(run_dir, dict(args), config, metrics)
        except Exception as exc:  # the run is written; a tracker's failure must not hide that
            log.warning("%s: could not log the run (%s: %s)", name, type(exc).__name__, str(exc)[:200])


def _wandb(run_dir: Path, args: dict[str, str], config: dict[str, Any], metrics: dict[str, float]) -> None:
    import wandb

    given: dict[str, Any] = {"name": run_dir.resolve().name, **args}
    if "tags" in given:
        given["tags"] = given["tags"].split("|")
    run = wandb.init(config=config, job_type="eval", **given)
    try:
        run.summary.update(metrics)
        for name in FILES:
            if (run_dir / name).is_file():
                run.save(str((run_dir / name).resolve()), base_path=str(run_dir.resolve()), policy="now")
    finally:
        run.finish()


def _mlflow(run_dir: Path, args: dict[str, str], config: dict[str, Any], metrics: dict[str, float]) -> None:
    import mlflow

    if "tracking_uri" in args:
        mlflow.set_tracking_uri(args.pop("tracking_uri"))
    if "experiment" in args:
        mlflow.set_experiment(args.pop("experiment"))
    run_name = args.pop("run_name", run_dir.resolve().name)
    with mlflow.start_run(run_name=run_name, tags=args or None):
        mlflow.log_params({key: json.dumps(value, ensure_ascii=False)[:500] for key, value in config.items()})
        mlflow.log_metrics(metrics)
        for name in FILES:
            if (run_dir / name).is_file():
                mlflow.log_artifact(str(run_dir / name))


def _read(path: Path) -> dict[str, Any]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
