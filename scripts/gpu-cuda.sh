#!/usr/bin/env bash
# The CUDA job: the embedded contract suite on every CUDA backend (torch-cuda and cupy), plus the
# CUDA adapters' own tests, on a GPU machine.
#
# Needs, already installed (nothing is pip-installed, no network is used): Python >= 3.11 with
# torch (a CUDA build), cupy, numpy, ml_dtypes, hypothesis, pytest, pyyaml, mpmath, click; pandas
# for reports. Runs from a plain checkout: the repository root goes on PYTHONPATH and the
# Judge's pytest plugin is loaded with -p when the package is not installed.
#
# Usage:  scripts/gpu-cuda.sh [ci|nightly] [extra pytest arguments...]
#   ci       (default) the derandomised Hypothesis budget CI gates on
#   nightly  the larger nightly budget
# Environment:
#   OUT=DIR  also write the log to DIR/gpu-cuda-<profile>.log and a JUnit file next to it
#
# --backend=cuda asks for every CUDA backend: one that is unavailable (no GPU, no cupy) stops the
# run with an error naming why, never a silent skip. The exit status is pytest's.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=ci
if [[ $# -gt 0 && ( $1 == ci || $1 == nightly ) ]]; then
    profile=$1
    shift
fi

export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}"

echo "== GPU"
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
else
    echo "nvidia-smi not found on PATH"
fi
python3 - <<'EOF'
import importlib
for name in ("torch", "cupy", "numpy", "ml_dtypes", "hypothesis"):
    try:
        print(f"{name} {importlib.import_module(name).__version__}")
    except ImportError as exc:
        print(f"{name}: not importable ({exc})")
EOF

# The pytest11 entry point exists only when the package is installed; otherwise load it by name.
plugin_args=()
if ! python3 -c "import sys, importlib.metadata as m; sys.exit(not any(e.name == 'judge' for e in m.entry_points(group='pytest11')))"; then
    plugin_args=(-p judge.pytest_plugin)
fi

log=/dev/null
report_args=()
if [[ -n ${OUT:-} ]]; then
    mkdir -p "$OUT"
    log="$OUT/gpu-cuda-$profile.log"
    report_args=(--junitxml "$OUT/gpu-cuda-$profile.xml")
fi

echo "== pytest --backend=cuda --judge-profile=$profile"
start=$(date +%s)
set +e
python3 -m pytest "${plugin_args[@]}" -p no:cacheprovider --backend=cuda \
    --judge-profile="$profile" -rfEs "${report_args[@]}" \
    suites/fuel tests/backends/test_cuda_adapters.py tests/backends/test_gpu_regressions.py "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
echo "== wall time: $(( $(date +%s) - start ))s (profile $profile, exit $status)" | tee -a "$log"
exit "$status"
