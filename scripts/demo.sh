#!/usr/bin/env bash
# Quick start, first command: install what is missing, build the release
# preset, run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/find-nvcc.sh
cmake --preset release >/dev/null
cmake --build --preset release --target gpmx
build/release/bin/gpmx demo "$@"
