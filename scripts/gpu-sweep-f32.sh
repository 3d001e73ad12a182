#!/usr/bin/env bash
# Exhaustive F32 sweeps (all 2^32 inputs each) of unary kernels on the CUDA backends, judged
# against the embedded suite's reference contracts: by default exp, log, sin and tanh on
# torch-cuda and cupy, in kernel calls of 2^28 inputs. Writes f32-sweep.json and f32-sweep.md
# (inputs/second, worst ULP with its input, settled elements, bandwidth of the natural kernel)
# under $OUT (default judge-audit/f32-sweep). Extra arguments go to `python -m judge.sweep.gpu_f32`
# (e.g. --chunks 0,8 to sweep two chunks only).
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

OUT=${OUT:-judge-audit/f32-sweep}
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
exec "$PY" -m judge.sweep.gpu_f32 --kernels "${KERNELS:-exp,log,sin,cos,tanh,erf,sqrt}" \
    --backends "${BACKENDS:-torch-cuda,cupy}" --out "$OUT" "$@"
