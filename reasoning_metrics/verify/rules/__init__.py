"""The rules behind the detectors: what each checks in a step, as plain functions and records.

A detector in :mod:`..detectors` is the thin class the registry names; the rule it applies (the arithmetic
check, the NLI reading, the judge's prompt and parse, the process reward model's threshold, ...) lives here
under the same name, so ``rules/prm.py`` is the rule and ``detectors/prm.py`` its detector.
"""
