#!/usr/bin/env bash
# Exhaustive sweeps of every unary contract with a CUDA or Vulkan kernel, on the GPU backends:
# every BF16 and F16 input (65,536 each) on torch-cuda, cupy and kompute, and every F32 input
# (2^32) where the OpKind has a certified F64 reference (exp, log, sin, cos, tanh, erf, sqrt, neg,
# abs, sqr, recip, rsqrt, floor, ceil; the others are listed with that reason, never skipped
# silently). Each contract runs on the backends
# of its own device. Two reports, each with its table of sweeps: $OUT/16bit and $OUT/f32
# (results.{parquet,csv,json}, summary.md, report.html, cases/). Exit status: 1 if a sweep
# fails, else 0.
#
# Usage:  scripts/gpu-sweep-unary.sh [extra judge sweep arguments, e.g. --limit 2]
# Environment:
#   OUT=DIR        where the reports go (default reports/out/unary-sweep)
#   VULKAN=0       leave kompute out (no Vulkan driver here); by default kp is loaded through
#                  scripts/gpu-vulkan.sh (run its `prepare` first, with .gl/ carried along)
#   CONTRACTS=...  the contract files swept (default the CUDA and Vulkan unary files)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
OUT=${OUT:-reports/out/unary-sweep}
mkdir -p "$OUT"

kernels=()
for f in ${CONTRACTS:-unary-cuda.fkc.md vulkan-elementwise.fkc.md}; do kernels+=(--kernel "$f::*"); done
backends=(--backend cuda)
[ "${VULKAN:-1}" = 0 ] || backends+=(--backend vulkan)

sweep() {
    if [ "${VULKAN:-1}" = 0 ]; then
        PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$PY" -m judge.cli sweep "$@"
    else
        bash scripts/gpu-vulkan.sh exec "$PY" -m judge.cli sweep "$@"
    fi
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
rc=0
echo "== 16-bit sweeps: every BF16 and F16 input"
sweep "${kernels[@]}" "${backends[@]}" --dtype BF16 --dtype F16 --processes "$(nproc)" \
    --out "$OUT/16bit" "$@" || rc=$?
echo "== F32 sweeps: every F32 input, where the reference is certified"
sweep "${kernels[@]}" "${backends[@]}" --dtype F32 --out "$OUT/f32" "$@" || rc=$?
echo "reports: $OUT/16bit/summary.md, $OUT/f32/summary.md"
exit "$rc"
