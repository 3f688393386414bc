#!/usr/bin/env bash
# The GPU check, as one prepared script (under 8 minutes, installs nothing):
#   benchmarks/gpu.sh RESULTS_DIR
# 1. runs the GPU test set (pytest -m gpu), log in RESULTS_DIR/pytest-gpu.log
# 2. times the demo on --device cuda and a 784-256-256-10 MLP training step (and its
#    phases, and what one launch costs through CuPy, the engine and torch) on
#    the GPU, side by side with PyTorch CUDA when it is importable;
#    results in RESULTS_DIR/gpu_bench.json and on stdout.
# Needs CuPy (any build: cupy-cuda12x, cupy-cuda13x...) and a visible GPU.
set -uo pipefail
out="${1:?usage: benchmarks/gpu.sh RESULTS_DIR}"
mkdir -p "$out"
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
py="${PYTHON:-python3}"

"$py" - <<'PY'
import minigrad_ckpt as mg
print("minigrad_ckpt", mg.__version__, "| cuda available:", mg.cuda.is_available(), "| devices:", mg.cuda.device_count())
PY

echo "== pytest -m gpu"
timeout 300 "$py" -m pytest -m gpu -q -p no:cacheprovider tests/gpu 2>&1 | tee "$out/pytest-gpu.log" | tail -n 25
pytest_status=${PIPESTATUS[0]}

echo "== timings"
timeout 240 "$py" benchmarks/gpu_bench.py --out "$out/gpu_bench.json"
bench_status=$?
echo "pytest exit $pytest_status, bench exit $bench_status"
exit $(( pytest_status != 0 || bench_status != 0 ))
