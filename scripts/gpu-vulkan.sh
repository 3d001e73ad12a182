#!/usr/bin/env bash
# The Vulkan job on an NVIDIA GPU machine: the embedded suite on the kompute backend
# (--backend=vulkan) plus the adapter's own tests, against the NVIDIA Vulkan driver.
#
# Two steps:
#   scripts/gpu-vulkan.sh prepare
#       On a networked Debian/Ubuntu x86-64 machine, in the repository root: fetches into .gl/
#       (git-ignored) the .debs of the Vulkan loader and headers, of fmt and of the glvnd
#       libraries the NVIDIA ICD loads, the kp 0.9.0 sdist, and a pybind11 wheel (kp built against pybind11 < 2.12 corrupts numpy 2 arrays).
#   scripts/gpu-vulkan.sh exec COMMAND...
#       The same setup, then any command (a judge audit of CUDA and Vulkan backends, say).
#   scripts/gpu-vulkan.sh [run] [ci|nightly] [extra pytest arguments...]
#       On the GPU machine (no network; root; Python >= 3.11 with numpy, ml_dtypes, hypothesis,
#       pytest, pyyaml, mpmath, click, setuptools, CMake and a C++ compiler; the NVIDIA driver
#       provides the Vulkan ICD), with .gl/ carried along: unpacks the .debs into /, builds kp
#       into /tmp/kp (about 30 s to 3 min), then runs pytest. The shipped SPIR-V is used, so
#       no shader compiler is needed. Exit status is pytest's.
#
# Environment: OUT=DIR also writes the log and a JUnit file there.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
GL=.gl
KP_SDIST=kp-0.9.0.tar.gz

prepare() {
    mkdir -p "$GL"
    # The glvnd libraries too: without them the NVIDIA ICD (libGLX_nvidia) cannot create an
    # instance, and kp aborts the process.
    (cd "$GL" && apt-get download libvulkan1 libvulkan-dev libfmt-dev \
        libglvnd0 libgl1 libglx0 libegl1 libopengl0 libgles2 \
        "$(apt-cache depends libfmt-dev | awk '/Depends: libfmt[0-9]/{print $2; exit}')")
    "$PY" -m pip download -q --no-deps --no-binary :all: kp==0.9.0 -d "$GL"
    "$PY" -m pip download -q --no-deps --only-binary :all: 'pybind11>=2.12' -d "$GL"
    ls -l "$GL"
}

unpack_loader() {
    for f in "$GL"/*.deb; do dpkg -x "$f" /; done
    ldconfig
    if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] \
        && [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
        export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    fi
}

build_kp() {
    local work=/tmp/kp-build
    rm -rf "$work" && mkdir -p "$work"
    "$PY" -m pip install -q --no-index --no-deps --target "$work/pybind11" "$GL"/pybind11-*.whl
    tar xzf "$GL/$KP_SDIST" -C "$work"
    # kp 0.9.0's setup.py lacks a comma, gluing -DPYTHON_EXECUTABLE onto the previous flag.
    sed -i "s/'-DKOMPUTE_OPT_DISABLE_VULKAN_VERSION_CHECK=ON'\$/'-DKOMPUTE_OPT_DISABLE_VULKAN_VERSION_CHECK=ON',/" \
        "$work/kp-0.9.0/setup.py"
    export KOMPUTE_OPT_INSTALL=OFF KOMPUTE_OPT_USE_BUILT_IN_VULKAN_HEADER=OFF \
        KOMPUTE_OPT_USE_BUILT_IN_FMT=OFF KOMPUTE_OPT_USE_BUILT_IN_PYBIND11=OFF \
        KOMPUTE_OPT_DISABLE_VULKAN_VERSION_CHECK=ON
    pybind11_DIR=$(PYTHONPATH="$work/pybind11" "$PY" -m pybind11 --cmakedir)
    export pybind11_DIR
    "$PY" -m pip install -q --no-build-isolation --no-index --no-deps --target /tmp/kp \
        "$work/kp-0.9.0"
}

run() {
    local profile=ci
    if [[ $# -gt 0 && ( $1 == ci || $1 == nightly ) ]]; then
        profile=$1
        shift
    fi
    [ -f "$GL/$KP_SDIST" ] || { echo "gpu-vulkan.sh: $GL/$KP_SDIST missing: run 'prepare' first" >&2; exit 2; }
    echo "== build kp"
    local start=$(date +%s)
    unpack_loader
    "$PY" -c "import kp" 2>/dev/null || [ -d /tmp/kp ] || build_kp
    echo "   $(( $(date +%s) - start ))s"
    export PYTHONPATH="/tmp/kp:$PWD${PYTHONPATH:+:$PYTHONPATH}"
    export CI=true  # the adapter tests must run, not skip
    export JUDGE_GPU_JOB=1  # ... except the SPIR-V rebuild check: no shader compiler here
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
    "$PY" - <<'EOF'
import kp
print("Vulkan device:", kp.Manager().get_device_properties()["device_name"])
EOF
    local plugin_args=()
    if ! "$PY" -c "import sys, importlib.metadata as m; sys.exit(not any(e.name == 'judge' for e in m.entry_points(group='pytest11')))"; then
        plugin_args=(-p judge.pytest_plugin)
    fi
    local log=/dev/null report_args=()
    if [[ -n ${OUT:-} ]]; then
        mkdir -p "$OUT"
        log="$OUT/gpu-vulkan-$profile.log"
        report_args=(--junitxml "$OUT/gpu-vulkan-$profile.xml")
    fi
    echo "== pytest --backend=vulkan --judge-profile=$profile"
    start=$(date +%s)
    set +e
    "$PY" -m pytest "${plugin_args[@]}" -p no:cacheprovider --backend=vulkan \
        --judge-profile="$profile" -rfEs "${report_args[@]}" \
        suites/fuel tests/backends/test_kompute.py "$@" 2>&1 | tee "$log"
    local status=${PIPESTATUS[0]}
    set -e
    echo "== wall time: $(( $(date +%s) - start ))s (profile $profile, exit $status)" | tee -a "$log"
    exit "$status"
}

# Any command with the loader unpacked and kp built, e.g. a CUDA + Vulkan audit:
#   scripts/gpu-vulkan.sh exec python3 -m judge.cli audit --backend cuda --backend vulkan
exec_with_vulkan() {
    [ -f "$GL/$KP_SDIST" ] || { echo "gpu-vulkan.sh: $GL/$KP_SDIST missing: run 'prepare' first" >&2; exit 2; }
    unpack_loader
    "$PY" -c "import kp" 2>/dev/null || [ -d /tmp/kp ] || build_kp
    export PYTHONPATH="/tmp/kp:$PWD${PYTHONPATH:+:$PYTHONPATH}"
    exec "$@"
}

case "${1:-run}" in
    prepare) prepare ;;
    run) shift || true; run "$@" ;;
    exec) shift; exec_with_vulkan "$@" ;;
    *) run "$@" ;;
esac
