"""Benchmarks by name: the ones k12eval knows, fetching them (``k12eval data pull``), and finding them offline.

A question-bank argument of ``k12eval run`` and ``k12eval kg`` goes through :func:`resolve_data`: an
existing path is read as it is; a benchmark's name (``ceval``, ``cmmlu``, ``gaokao``...), an lm-eval or
OpenCompass task name (``ceval-valid``, ``cmmlu_agronomy``), its hub id (``ceval/ceval-exam``) or
``hf://org/name`` is found among what was pulled and in the Hugging Face hub cache, never downloaded
(docs/data.md). Nothing here imports huggingface_hub or httpx until a bank is looked up or fetched.
"""

from __future__ import annotations

from k12eval.banks._benchmarks import (
    BENCHMARKS,
    ArchiveSource,
    Benchmark,
    HubSource,
    Named,
    find_benchmark,
    hub_id,
)
from k12eval.banks._fetch import PullResult, pull
from k12eval.banks._locate import DataRef, NotOnThisMachine, find_local, locate, resolve_data
from k12eval.banks._unpack import Pulled, data_home, read_pulled

__all__ = [
    "BENCHMARKS",
    "ArchiveSource",
    "Benchmark",
    "DataRef",
    "HubSource",
    "Named",
    "NotOnThisMachine",
    "PullResult",
    "Pulled",
    "data_home",
    "find_benchmark",
    "find_local",
    "hub_id",
    "locate",
    "pull",
    "read_pulled",
    "resolve_data",
]
