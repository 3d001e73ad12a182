#!/usr/bin/env bash
# The main job: installs what is missing, then runs the nightly audit of the embedded suite on
# every available backend and writes reports/out/ (report.html, results.*, summary.md, cases/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec judge audit "$@"
