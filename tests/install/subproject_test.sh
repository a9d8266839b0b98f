#!/usr/bin/env bash
# gpmx built inside another project: examples/journal with
# -DGPMX_SOURCE_DIR (FetchContent, which adds gpmx with add_subdirectory),
# which builds gpmx's libraries only,
# with the same gpmx:: target names as the installed package.
# usage: subproject_test.sh SOURCE_DIR WORK_DIR [CUDA_COMPILER]
set -euo pipefail
src=$1
work=$2
nvcc=${3:-}
fail() { echo "subproject test: FAILED: $*" >&2; exit 1; }
cuda=(-DCMAKE_CUDA_ARCHITECTURES=80-virtual)
[[ -n $nvcc ]] && cuda+=(-DCMAKE_CUDA_COMPILER="$nvcc")
rm -rf "$work"
mkdir -p "$work"
cmake -S "$src/examples/journal" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DGPMX_SOURCE_DIR="$src" "${cuda[@]}" | tee "$work/configure.log"
if grep -q "GPMX_BUILD_TESTS:BOOL=ON" "$work/build/CMakeCache.txt"; then fail "gpmx's tests were on as a subproject"; fi
cmake --build "$work/build" -j2
[[ -z $(find "$work/build" -name gpmx -type f -perm -u+x) ]] || fail "the subproject built the gpmx program"
if [[ -n $nvcc ]]; then
  [[ -x $work/build/journal_cuda ]] || fail "nvcc is present but the example's CUDA build was not made"
fi
"$work/build/journal" --dir "$work/run" || fail "the example failed (above)"
rm -rf "$work"
echo "subproject test: passed"
