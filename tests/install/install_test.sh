#!/usr/bin/env bash
# gpmx as another project uses it (README "Use gpmx in your project"):
#   1. gpmx configures with only the libraries on (configure only: the
#      libraries-only build is install.subproject's, label long); the build
#      tree that runs this test installs to a prefix;
#   2. the installed headers are a complete set: all of them compile
#      together against the prefix alone (each header on its own is
#      headers.self_contained's check, on the source tree);
#   3. examples/journal builds against the prefix alone (find_package), runs,
#      and the crash checker finds no failure;
#   4. the same example with its record persist deleted (a one-line change)
#      builds, and the checker finds the failure;
#   5. examples/journal builds with pkg-config's flags alone, and runs.
# (and first: the executor alone configures without libpmem or the test
# libraries).
# usage: install_test.sh SOURCE_DIR BUILD_DIR WORK_DIR [CUDA_COMPILER]
# BUILD_DIR: the built tree to install (the one running this test).
# CUDA_COMPILER (nvcc's path, or empty): the CUDA build of the example, as
# in the build tree that runs this test.
set -euo pipefail
src=$1
build=$2
work=$3
nvcc=${4:-}
fail() { echo "install test: FAILED: $*" >&2; exit 1; }
step() { echo; echo "== install test: $* ($(date +%T))"; }

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
# The example's runs on tmpfs where there is one: its crash check writes
# hundreds of small images.
runs=$work
if [[ -d /dev/shm && -w /dev/shm ]]; then runs=$(mktemp -d /dev/shm/gpmx-install-test.XXXXXX); fi
trap 'if [[ $runs == /dev/shm/* ]]; then rm -rf "$runs"; fi' EXIT
cuda_args=(-DGPMX_CUDA=OFF)
if [[ -n $nvcc ]]; then
  # One architecture's PTX: this test is about packaging, not about device code.
  cuda_args=(-DGPMX_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=80-virtual)
fi
example_cuda=(-DCMAKE_CUDA_ARCHITECTURES=80-virtual)
[[ -n $nvcc ]] && example_cuda+=(-DCMAKE_CUDA_COMPILER="$nvcc")

step "gpmx's executor alone: configure only"
# A project that wants the executor needs neither libpmem nor the test,
# command-line or benchmark libraries.
cmake -S "$src" -B "$work/exec-only" -G Ninja -DGPMX_BUILD_TESTS=OFF -DGPMX_BUILD_TOOLS=OFF -DGPMX_BUILD_APPS=OFF \
  -DGPMX_BUILD_BENCH=OFF -DGPMX_PM=OFF -DGPMX_CUDA=OFF > "$work/exec-only.log" || { cat "$work/exec-only.log"; fail "configuring the executor alone"; }
if grep -q "LIBPMEM\|GTest_DIR\|CLI11_DIR\|benchmark_DIR" "$work/exec-only/CMakeCache.txt"; then
  fail "configuring the executor alone looked for libpmem or a test, command-line or benchmark library"
fi
rm -rf "$work/exec-only"

step "gpmx, libraries only: configure"
cmake -S "$src" -B "$work/gpmx-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DGPMX_BUILD_TESTS=OFF -DGPMX_BUILD_TOOLS=OFF -DGPMX_BUILD_APPS=OFF -DGPMX_BUILD_BENCH=OFF -DGPMX_INSTALL=ON \
  "${cuda_args[@]}" > "$work/gpmx-configure.log" || { cat "$work/gpmx-configure.log"; fail "configuring gpmx"; }
grep -q "GPMX_BUILD_TESTS:BOOL=OFF" "$work/gpmx-build/CMakeCache.txt" || fail "GPMX_BUILD_TESTS did not stay off"
if grep -q "GTest_DIR\|CLI11_DIR" "$work/gpmx-build/CMakeCache.txt"; then
  fail "a libraries-only configure looked for the test or command-line libraries"
fi
if grep -q "^build bin/gpmx:" "$work/gpmx-build/build.ninja"; then
  fail "a libraries-only configure would build the gpmx program"
fi
grep -q "^build lib/libgpmx_check.a:" "$work/gpmx-build/build.ninja" || fail "a libraries-only configure would not build the libraries"
rm -rf "$work/gpmx-build"

step "install the built tree"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in lib/cmake/gpmx/gpmxConfig.cmake lib/cmake/gpmx/gpmxConfigVersion.cmake lib/pkgconfig/gpmx.pc \
         include/gpmx/version.hpp include/gpmx/exec/launch_target.hpp lib/libgpmx_exec.a share/doc/gpmx/LICENSE; do
  [[ -e $prefix/$f ]] || fail "$f was not installed"
done
if [[ $(uname -m) == x86_64 && ! -e $prefix/lib/libgpmx_read_preload.so ]]; then
  fail "lib/libgpmx_read_preload.so (gpmx check's read tracking of --verify commands) was not installed"
fi
if grep -rlF "$src" "$prefix/lib/cmake" "$prefix/lib/pkgconfig"; then
  fail "the installed package files name gpmx's source tree"
fi
if grep -rlF "$build" "$prefix/lib/cmake" "$prefix/lib/pkgconfig"; then
  fail "the installed package files name gpmx's build tree"
fi

step "installed headers, all together"
cmake -S "$src/tests/install/headers" -B "$work/headers" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  "${example_cuda[@]}" > "$work/headers-configure.log" || { cat "$work/headers-configure.log"; fail "configuring the header check"; }
cmake --build "$work/headers" -j2 > "$work/headers-build.log" || { tail -40 "$work/headers-build.log"; fail "the installed headers do not compile against the prefix alone"; }

build_example() {  # SOURCE BUILD
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" "${example_cuda[@]}" \
    > "$2.configure.log" || { cat "$2.configure.log"; fail "configuring the example in $1"; }
  cmake --build "$2" -j2
}

step "the example against the prefix"
cp -r "$src/examples/journal" "$work/journal"
build_example "$work/journal" "$work/journal-build"
if [[ -n $nvcc ]]; then
  [[ -x $work/journal-build/journal_cuda ]] || fail "nvcc is present but the example's CUDA build was not made"
fi
"$work/journal-build/journal" --dir "$runs/run" | tee "$work/journal.out" || fail "the example failed (above)"
grep -q "run on the cpu executor: verified" "$work/journal.out" || fail "the example's run did not verify"
grep -q "crash check under sbrp: .* images, 0 failed" "$work/journal.out" || fail "the example's crash check did not run clean"

step "the example with its record persist dropped"
cp -r "$src/examples/journal" "$work/journal-bug"
marker="the record is durable before its commit"
grep -q "$marker" "$work/journal-bug/journal_kernel.hpp" || fail "the example's persist line ('$marker') is gone"
sed -i "/$marker/d" "$work/journal-bug/journal_kernel.hpp"
cmake -S "$work/journal-bug" -B "$work/journal-bug-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" "${example_cuda[@]}" > /dev/null
cmake --build "$work/journal-bug-build" -j2 --target journal
set +e
"$work/journal-bug-build/journal" --dir "$runs/run-bug" > "$work/journal-bug.out"
rc=$?
set -e
cat "$work/journal-bug.out"
[[ $rc -eq 1 ]] || fail "without its persist the example exited $rc, not 1"
grep -q "failure: .*journal_kernel.hpp" "$work/journal-bug.out" || fail "the checker did not name the kernel's stores"

step "the example with pkg-config's flags"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs gpmx) || fail "pkg-config does not know gpmx"
g++ -O1 "$src/examples/journal/main.cpp" "$src/examples/journal/journal_program.cpp" $flags -o "$work/journal-pc"
# The run only: the checker's part is the same code as above.
"$work/journal-pc" --run-only --dir "$runs/run-pc" > "$work/journal-pc.out" || { cat "$work/journal-pc.out"; fail "the pkg-config build failed"; }
grep -q "run on the cpu executor: verified" "$work/journal-pc.out" || fail "the pkg-config build's run did not verify"

rm -rf "$work"
echo "install test: passed"
