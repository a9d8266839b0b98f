#!/usr/bin/env bash
# Quick start, second command: install what is missing, build the release
# preset (with the CUDA build when nvcc is present) and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/find-nvcc.sh
preset=${GPMX_TEST_PRESET:-release}
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset"
