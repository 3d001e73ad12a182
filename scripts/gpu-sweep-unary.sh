#!/usr/bin/env bash
# Exhaustive sweeps of every unary contract with a CUDA or Vulkan kernel, on the GPU backends:
# every BF16 and F16 input (65,536 each) on torch-cuda, cupy and kompute, and every F32 input
# (2^32) where the OpKind has a certified F64 reference (exp, log, sin, cos, tanh, erf, sqrt, neg,
# abs, sqr, recip, rsqrt, floor, ceil; the others are listed with that reason, never skipped
# silently). Each contract runs on the backends
# of its own device. A report per device and width, each with its table of sweeps:
# $OUT/cuda-16bit, $OUT/cuda-f32, $OUT/vulkan-16bit, $OUT/vulkan-f32 (results.{parquet,csv,json},
# summary.md, report.html, cases/). Exit status: 1 if a sweep
# fails, else 0.
#
# Usage:  scripts/gpu-sweep-unary.sh [extra judge sweep arguments, e.g. --limit 2]
# Environment:
#   OUT=DIR        where the reports go (default reports/out/unary-sweep)
#   VULKAN=0       leave kompute out (no Vulkan driver here); by default kp is loaded through
#                  scripts/gpu-vulkan.sh (run its `prepare` first, with .gl/ carried along)
#   CUDA_CONTRACTS=FILE  the CUDA unary contracts (default suites/fuel/unary-cuda.fkc.md)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
OUT=${OUT:-reports/out/unary-sweep}
mkdir -p "$OUT"

cuda_file=${CUDA_CONTRACTS:-suites/fuel/unary-cuda.fkc.md}
extra=("$@")

sweep() {
    if [ "${VULKAN:-1}" = 0 ]; then
        PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$PY" -m judge.cli sweep "$@"
    else
        bash scripts/gpu-vulkan.sh exec "$PY" -m judge.cli sweep "$@"
    fi
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
rc=0
sweep_group() {  # NAME, then the arguments that choose its kernels and backends
    local name=$1
    shift
    echo "== $name: 16-bit sweeps, every BF16 and F16 input"
    sweep "$@" --dtype BF16 --dtype F16 --processes "$(nproc)" --out "$OUT/$name-16bit" "${extra[@]}" || rc=$?
    echo "== $name: F32 sweeps, every F32 input where the reference is certified"
    sweep "$@" --dtype F32 --out "$OUT/$name-f32" "${extra[@]}" || rc=$?
}
# The CUDA unary contracts on the CUDA backends; the Vulkan elementwise contracts on kompute.
sweep_group cuda --contracts "$cuda_file" --kernel '*' --backend cuda
[ "${VULKAN:-1}" = 0 ] || sweep_group vulkan --kernel 'vulkan-elementwise.fkc.md::*' --backend vulkan
echo "reports: $OUT/{cuda,vulkan}-{16bit,f32}/summary.md"
exit "$rc"
