#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang 14 in a build tree of their
# own and runs each on its seed corpus (fuzz/corpus/<target>/).
#   scripts/fuzz.sh --short          15 seconds a target (the ctest test fuzz.short)
#   scripts/fuzz.sh --long [SECONDS] SECONDS a target (default 600)
#   scripts/fuzz.sh --make-seeds     rewrites the generated seed corpora
#   --only TARGET                    runs that target alone (e.g. fuzz_workload)
# --build-dir DIR picks the build tree (default build/fuzz). New inputs a run
# finds go to a scratch directory, not into the committed corpora; a crash
# leaves its input as DIR/artifacts/<target>-crash-* and fails the run.
# Without clang++-14 or libFuzzer the script says so and exits 77 (skipped).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=short
seconds=15
build=$root/build/fuzz
only=
while (($#)); do
  case $1 in
    --short) mode=short; seconds=15 ;;
    --long) mode=long; seconds=600
            if [[ ${2:-} =~ ^[0-9]+$ ]]; then seconds=$2; shift; fi ;;
    --make-seeds) mode=seeds ;;
    --build-dir) build=$2; shift ;;
    --only) only=${2:-}; shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (--short, --long [SECONDS], --make-seeds, --build-dir DIR, --only TARGET)" >&2; exit 2 ;;
  esac
  shift
done

cxx=${GPMX_FUZZ_CXX:-clang++-14}
if ! command -v "$cxx" >/dev/null; then
  echo "fuzz: skipped: $cxx not found (Debian packages clang-14 and libfuzzer-14-dev, scripts/install-deps.sh)"
  exit 77
fi
if [[ ! -e $("$cxx" -print-file-name=libclang_rt.fuzzer-x86_64.a) && \
      ! -e "$("$cxx" -print-runtime-dir)/libclang_rt.fuzzer-x86_64.a" ]]; then
  echo "fuzz: skipped: $cxx has no libFuzzer runtime (Debian package libfuzzer-14-dev)"
  exit 77
fi

# Line tables only (stack traces keep file and line). The long mode at -O1,
# as OSS-Fuzz builds its AddressSanitizer targets; the short mode, a smoke
# run of 15 seconds a target inside the test suite, at -O0: its tree (every
# workload included) builds in about 40% less time, and it is the build,
# not the run, that the suite waits for.
opt=-O1
[[ $mode == short ]] && opt=-O0
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt -gline-tables-only -DNDEBUG" \
  -DGPMX_FUZZ=ON -DGPMX_SANITIZER=address -DGPMX_CUDA=OFF >/dev/null
targets=(fuzz_pool fuzz_hcl_log fuzz_conv_log fuzz_workload fuzz_trace fuzz_litmus)
if [[ -n $only ]]; then
  if [[ " ${targets[*]} " != *" $only "* ]]; then
    echo "fuzz.sh: --only '$only' is not a target (${targets[*]})" >&2
    exit 2
  fi
  targets=("$only")
fi
extra=()
[[ $mode == seeds ]] && extra=(fuzz_make_seeds)
cmake --build "$build" --target "${targets[@]}" "${extra[@]}"

if [[ $mode == seeds ]]; then
  "$build/bin/fuzz_make_seeds" "$root/fuzz/corpus"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gpmx-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$build/artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
status=0
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  log=$work/$t.log
  # The first corpus directory receives new inputs; the committed seeds are read only.
  seeds=()
  [[ -d $root/fuzz/corpus/$t ]] && seeds=("$root/fuzz/corpus/$t")
  if "$build/bin/$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
       -artifact_prefix="$build/artifacts/$t-" "$work/$t" "${seeds[@]}" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    # libFuzzer's last status line: coverage edges, features and corpus size.
    final=$(grep -aE '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 | sed -E 's/^#[0-9]+[[:space:]]+DONE[[:space:]]+//' || true)
    echo "fuzz: $t: $runs executions in $seconds s, no finding (${final:-no final status})"
  else
    echo "fuzz: $t: FAILED (input saved under $build/artifacts/); its last lines:"
    tail -n 40 "$log"
    status=1
  fi
done
exit $status
