#!/usr/bin/env bash
# Install what the Vulkan backend (kompute) needs: the Vulkan loader and headers, Mesa's
# lavapipe software device, glslangValidator, and the `kp` 0.9.0 Python bindings built against
# the system Vulkan/fmt/pybind11.
#
# Idempotent: returns at once when `kp` imports and a Vulkan device is listed.
#
# kp 0.9.0's setup.py has a missing comma after -DKOMPUTE_OPT_DISABLE_VULKAN_VERSION_CHECK=ON, so
# -DPYTHON_EXECUTABLE is glued onto it and CMake picks whatever python3.x it finds first (on a
# pyenv machine a broken python3.6 shim). We build from the sdist with that one comma restored.
set -euo pipefail

PY=${PYTHON:-python3}

if "$PY" - <<'EOF' 2>/dev/null
import kp, numpy
m = kp.Manager()
# pybind11 < 2.12 misreads numpy 2 arrays (every element becomes the first): check a round trip.
assert list(m.tensor(numpy.array([1.5, 2.5], dtype=numpy.float32)).data()) == [1.5, 2.5]
print("kp already installed; Vulkan device:", m.get_device_properties()["device_name"])
EOF
then
    exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

need_apt=0
for bin in glslangValidator; do command -v "$bin" >/dev/null || need_apt=1; done
for lib in libvulkan.so.1; do ldconfig -p | grep -q "$lib" || need_apt=1; done
[ -e /usr/include/vulkan/vulkan.h ] || need_apt=1
[ -d /usr/share/vulkan/icd.d ] || need_apt=1
if [ "$need_apt" = 1 ]; then
    $SUDO apt-get update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y \
        libvulkan-dev mesa-vulkan-drivers glslang-tools libfmt-dev pybind11-dev cmake g++
fi

export KOMPUTE_OPT_INSTALL=OFF
export KOMPUTE_OPT_USE_BUILT_IN_VULKAN_HEADER=OFF
export KOMPUTE_OPT_USE_BUILT_IN_FMT=OFF
export KOMPUTE_OPT_USE_BUILT_IN_PYBIND11=OFF
export KOMPUTE_OPT_DISABLE_VULKAN_VERSION_CHECK=ON
# Debian's pybind11 (2.10) predates numpy 2's array layout: kp built against it hands the GPU
# the first element repeated. pybind11 >= 2.12 from PyPI knows both layouts.
"$PY" -m pip install -q 'pybind11>=2.12'
pybind11_DIR=$("$PY" -m pybind11 --cmakedir)
export pybind11_DIR

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PY" -m pip download --no-deps --no-binary :all: kp==0.9.0 -d "$work"
tar xzf "$work"/kp-0.9.0.tar.gz -C "$work"
sed -i "s/'-DKOMPUTE_OPT_DISABLE_VULKAN_VERSION_CHECK=ON'\$/'-DKOMPUTE_OPT_DISABLE_VULKAN_VERSION_CHECK=ON',/" \
    "$work"/kp-0.9.0/setup.py
grep -q "VERSION_CHECK=ON'," "$work"/kp-0.9.0/setup.py || {
    echo "install-vulkan.sh: could not patch kp 0.9.0 setup.py (upstream file changed?)" >&2
    exit 2
}
"$PY" -m pip install --no-deps --no-build-isolation "$work"/kp-0.9.0

"$PY" - <<'EOF'
import kp, numpy
m = kp.Manager()
assert list(m.tensor(numpy.array([1.5, 2.5], dtype=numpy.float32)).data()) == [1.5, 2.5], "kp corrupts numpy arrays"
print("Vulkan device:", m.get_device_properties()["device_name"])
EOF
