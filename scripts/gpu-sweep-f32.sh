#!/usr/bin/env bash
# Exhaustive F32 sweeps (all 2^32 inputs each) of unary kernels on the CUDA backends, judged
# against the embedded suite's reference contracts: by default exp, log, sin and tanh on
# torch-cuda and cupy, in kernel calls of 2^28 inputs. Writes f32-sweep.json and f32-sweep.md
# (inputs/second, worst ULP with its input, settled elements, bandwidth of the natural kernel)
# under $OUT (default reports/out/f32-sweep), with the audit report and its table of F32 sweeps.
# Extra arguments go to `judge sweep` (e.g. --chunks 0,8 to sweep two chunks only).
# On a host with several GPUs, --gpus all spreads each sweep over them (one process per GPU).
# BACKENDS=torch-cuda,cupy-direct calls cupy's ufuncs directly (backends/cupy_direct.py) where
# the cupy adapter cannot be loaded.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

# The contract loader needs PyYAML; an offline GPU image may lack it. Wheels carried in
# .carry/sweep-wheels (pip download pyyaml click) are installed from there, without a network.
for pair in yaml:pyyaml click:click; do
    mod=${pair%%:*} pkg=${pair#*:}
    if ! "$PY" -c "import $mod" 2>/dev/null && [ -d .carry/sweep-wheels ]; then
        "$PY" -m pip install -q --no-index --find-links .carry/sweep-wheels "$pkg"
    fi
done

OUT=${OUT:-reports/out/f32-sweep}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/gpu.csv" 2>&1 || true
"$PY" - <<'PY' > "$OUT/environment.txt" 2>&1 || true
import importlib, platform
print("python", platform.python_version())
for m in ("numpy", "torch", "cupy", "mpmath", "ml_dtypes", "yaml", "click"):
    try:
        print(m, importlib.import_module(m).__version__)
    except Exception as exc:
        print(m, "unavailable:", exc)
PY
args=()
IFS=, read -ra kernels <<< "${KERNELS:-exp,log,sin,cos,tanh,erf,sqrt}"
for k in "${kernels[@]}"; do args+=(--kernel "reference-elementwise.fkc.md::$k"); done
IFS=, read -ra backends <<< "${BACKENDS:-torch-cuda,cupy}"
for b in "${backends[@]}"; do args+=(--backend "$b"); done
# the reference (Cpu) contracts, judged across devices
rc=0
"$PY" -m judge.cli sweep --dtype F32 --cross --plugin backends.cupy_direct "${args[@]}" \
    --out "$OUT" "$@" || rc=$?
# the natural kernels' own throughput, beside each sweep's (a benchmark, not a verdict)
"$PY" benchmarks/f32_kernel_throughput.py "$OUT" || true
exit "$rc"
