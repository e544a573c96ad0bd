#!/usr/bin/env bash
# The declared floors of k12eval's direct dependencies, checked: each `name>=X` of [project] dependencies
# installed as `name==X` (wheels only, in a virtualenv of its own), then the CLI smoke tests run there.
# A floor that is too low (typer 0.12.0 cannot read `str | None` options) fails here, not on a user's machine.
#   bash scripts/check_lower_bounds.sh          # .venv-floor beside the checkout; FLOOR_VENV=... elsewhere
#   FLOOR_PINS="typer==0.15.0" bash scripts/check_lower_bounds.sh   # try another floor before declaring it
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.11}
VENV=${FLOOR_VENV:-.venv-floor}
# The command line end to end on the core dependencies only: start-up, lists, import, run against a real
# 127.0.0.1 server, a plugin backend, the base_url probe, the locks without fcntl, report, models; and the
# question schema, whose field descriptions need pydantic>=2.7 (attribute docstrings); kg export, whose
# node-link JSON networkx 3.2 and 3.3 spell with link= (kg.graph.node_link_keywords).
SMOKE=(
    tests/k12eval/test_cli_startup.py
    tests/k12eval/test_cli_lists.py
    tests/kg/test_importers_schema.py::test_field_descriptions_are_the_docstrings_under_the_fields
    tests/runners/test_run_results.py
    tests/k12eval/test_plugin_backends.py
    tests/runners/backends/test_backend_base_url.py
    tests/runners/test_files_portable.py
    tests/kg/test_importers_cli.py::test_export_and_reload
)
mapfile -t pins < <("$PYTHON" - "${FLOOR_PINS:-}" <<'PY'
import re, sys, tomllib

with open("pyproject.toml", "rb") as handle:
    declared = tomllib.load(handle)["project"]["dependencies"]
override = {re.split(r"[=<>!~ ]", p, maxsplit=1)[0].lower(): p for p in sys.argv[1].split()}
for requirement in declared:
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*>=\s*([^,;\s]+)\s*", requirement)
    if match is None:
        sys.exit(f"check_lower_bounds: {requirement!r} has no plain '>=' floor to check")
    name, floor = match.groups()
    print(override.pop(name.lower(), f"{name}=={floor}"))
print(*override.values(), sep="\n") if override else None
PY
)
echo "check_lower_bounds: ${pins[*]}"
# A fresh virtualenv each time: what pip picks for the floors' own dependencies (click for typer) must be
# what a new user gets, not what an earlier check left behind.
"$PYTHON" -m venv --clear "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check --only-binary :all: "${pins[@]}" "pytest>=8"
PYTHONPATH="$PWD" "$VENV/bin/python" -m pytest -q -p no:cacheprovider -m "not real_model" "${SMOKE[@]}"
