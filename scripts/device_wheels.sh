#!/usr/bin/env bash
# Wheels of the k12eval dependencies the lent GPU machine lacks, for its Python 3.12 (x86_64), into .whl/.
#
# The device has torch, transformers, sentence-transformers, numpy, networkx, typer, rich, httpx,
# pyyaml, and a filelock that may be older than 3.30 (lock_descriptor), so filelock travels too; (torch brings sympy, mpmath, jinja2); not pydantic (nor its three helpers)
# nor pandas (nor python-dateutil, tzdata). .whl/ is ignored by git: carry it with the call (run's carry list),
# then on the device, with no network:
#   python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
#   export PYTHONPATH=/tmp/site:$PWD
# Versions are the ones this checkout is tested with (/work/main/.venv).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
WHEELS=(
  pydantic==2.14.4
  pydantic-core==2.50.5
  annotated-types==0.8.0
  typing-inspection==0.4.5
  pandas==3.1.1
  python-dateutil==4.0.0
  tzdata==2026.6
  filelock==4.3.1
)
mkdir -p .whl
for wheel in "${WHEELS[@]}"; do
  "$PYTHON" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d .whl "$wheel"
done
ls -l .whl
du -sh .whl
