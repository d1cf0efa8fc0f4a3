#!/usr/bin/env bash
# The GPU benchmark on a machine without network whose python3 has torch (CUDA), transformers,
# numpy, scipy, pandas, matplotlib, jinja2, tqdm, threadpoolctl and pyyaml: installs the carried
# wheels (.whl/, from bench/gpu_prepare.sh) and gec-meta itself into /tmp/site, then runs
# bench/bench_gpu.py for bert-base and bert-large shapes (random weights, MiniLM tokenizer),
# PT-M2 (sentence) on GJG15 and BERTScore on SEEDA, cold, warm, against a plain forward pass,
# plus the device-vs-CPU check, then bench/gpu_batch_shapes.py (BATCH_SHAPES=0 skips it).  Writes
# the table, the measurements and the logs to $OUT (or /tmp/gpu-bench-out) and prints the table
# last (on an H200: ~6 min for both shapes, ~2.5 min for SHAPES=base).  Run from the repository root:
#   bash bench/gpu_device.sh [extra bench_gpu.py options, e.g. --limit 60]
# (SHAPES="tiny" BUDGET_S=... PY=... SITE=... change the shapes, time budget, interpreter, install folder)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-bench-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export GEC_META_DATA="$PWD/.gpu-data"
PY=${PY:-python3}
SITE=${SITE:-/tmp/site}
start=$(date +%s)

{
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 || true
    "$PY" -c 'import sys, torch, transformers; print(sys.version.split()[0], "torch", torch.__version__,
"cuda", torch.cuda.is_available(), "transformers", transformers.__version__)'
    # gec-meta's wheel (built from this tree by bench/gpu_prepare.sh) and Hydra's
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl
} > "$OUT/setup.log" 2>&1
status=$?
cat "$OUT/setup.log"
if [ $status -ne 0 ]; then echo "setup failed"; exit 1; fi
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
echo "setup: $(( $(date +%s) - start )) s"

shapes=()
for s in ${SHAPES:-base large}; do shapes+=(--random-init "$s"); done
"$PY" bench/bench_gpu.py "${shapes[@]}" --tokenizer .gpu-data/minilm-tokenizer \
    --check-sentences 30 --budget-s "${BUDGET_S:-420}" --workdir /tmp/gpu-bench-work \
    --out "$OUT/RESULTS_GPU.md" --json "$OUT/bench_gpu.json" "$@" > /dev/null 2> "$OUT/bench_gpu.log"
status=$?
tail -n 25 "$OUT/bench_gpu.log"
# which pass shapes give a text the same bits on this device (plain transformers; seconds on a GPU)
# (on a machine without CUDA, e.g. a CPU dry run of this script, bert-base and bert-large passes of
# every shape take tens of minutes: skipped)
if [ "${BATCH_SHAPES:-1}" != 0 ]; then
    if "$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
        "$PY" bench/gpu_batch_shapes.py --json "$OUT/batch_shapes.json" > "$OUT/batch_shapes.log" 2>&1 \
            || echo "bench/gpu_batch_shapes.py failed (see $OUT/batch_shapes.log)"
    else
        echo "no CUDA device: bench/gpu_batch_shapes.py skipped"
    fi
fi
echo "total: $(( $(date +%s) - start )) s, bench exit status $status"
echo
cat "$OUT/RESULTS_GPU.md" 2>/dev/null || echo "no table written"
exit $status
