#!/usr/bin/env bash
# Cost bootstrapping on a CUDA machine: `judge measure` on torch-cuda and cupy, and the check of
# the Judge's timing against a plain CUDA-event timing of the same library call.
#
# Needs what scripts/gpu-cuda.sh needs (torch with CUDA, cupy, numpy, ml_dtypes, hypothesis,
# pyyaml, mpmath, click); nothing is installed, no network is used.
#
# Usage:  scripts/gpu-measure.sh [extra judge measure arguments...]
#   e.g.  scripts/gpu-measure.sh --dtype F32 --kernel 'add_*'
# Environment:
#   OUT=DIR  where measured-cost.json, cost.html and reference/ go (default: judge-measure-cuda)
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}"
out=${OUT:-judge-measure-cuda}
mkdir -p "$out"

echo "== the Judge against a plain CUDA-event timing (F32 add, 2^4..2^28)"
python3 benchmarks/measure_reference.py --out "$out/reference" --sizes 4:28 | tee "$out/reference.txt"

echo "== judge measure --backend cuda $*"
python3 -m judge.cli measure --backend cuda --out "$out" "$@"
