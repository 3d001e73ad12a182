#!/usr/bin/env bash
# The test command: installs what is missing, checks the import walls of SPEC §2 (lint-imports,
# contracts in pyproject.toml), then runs the Judge's own tests and the embedded contract suite on
# the CPU backends (numpy, torch-cpu) and the Vulkan backend (kompute).
# Every requested backend must be available: a missing one is an error, never a skip.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
lint-imports --no-cache
exec python3 -m pytest -n 2 -p no:randomly tests suites/fuel \
    --backend=cpu --backend=vulkan --judge-profile=ci -rfEs "$@"
