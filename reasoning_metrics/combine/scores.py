"""ProcessBench's measures of first-wrong-step predictions, as plain numbers (for choosing a threshold)."""

from __future__ import annotations

from collections.abc import Sequence


def processbench(predictions: Sequence[int], targets: Sequence[int]) -> dict[str, float | None]:
    """``acc_error`` (exact first step on wrong solutions), ``acc_correct`` (-1 on correct ones) and their
    harmonic mean ``f1``; a measure with no solution to count is ``None``."""
    errors = [p == t for p, t in zip(predictions, targets, strict=True) if t >= 0]
    correct = [p == -1 for p, t in zip(predictions, targets, strict=True) if t < 0]
    acc_error = sum(errors) / len(errors) if errors else None
    acc_correct = sum(correct) / len(correct) if correct else None
    f1 = None
    if acc_error is not None and acc_correct is not None:
        f1 = 0.0 if acc_error + acc_correct == 0 else 2 * acc_error * acc_correct / (acc_error + acc_correct)
    return {"acc_error": acc_error, "acc_correct": acc_correct, "f1": f1}
