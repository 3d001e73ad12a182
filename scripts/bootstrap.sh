#!/usr/bin/env bash
# Installs everything the Judge needs on a fresh Debian machine with Python 3.11+ (idempotent):
# system packages (Vulkan loader, Mesa lavapipe, glslang, Chromium for report tests), PyTorch's
# CPU build, the project with its test and audit extras, and kompute (kp) built from its sdist.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
for pkg in libvulkan-dev mesa-vulkan-drivers glslang-tools libfmt-dev pybind11-dev chromium; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "bootstrap: apt-get install ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
# The CPU build of torch (a plain `pip install torch` would pull a multi-GB CUDA build).
"$PY" -c "import torch" 2>/dev/null || "$PY" -m pip install -q torch==2.13.0
"$PY" -m pip install -q -e '.[torch,test,audit,lint]'
bash scripts/install-vulkan.sh
