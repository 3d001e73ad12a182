#!/usr/bin/env bash
# Rebuild the Vulkan backend's SPIR-V (backends/kompute/spv/*.spv) from shaders/*.comp.
# The program list (source + defines of each .spv) lives in backends/kompute/programs.py.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v glslangValidator >/dev/null || {
    echo "compile-shaders.sh: glslangValidator not found (apt-get install glslang-tools)" >&2
    exit 2
}
exec "${PYTHON:-python3}" -m backends.kompute.programs
