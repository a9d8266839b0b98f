# Sourced by the command-line tests: a scratch directory to work in, a
# failure count, and expect STATUS COMMAND... (runs COMMAND with its output
# in out.txt and err.txt, and counts a failure when it exits otherwise).
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0

expect() {
  local want="$1"; shift
  "$@" > out.txt 2> err.txt
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: '$*' exited $got, expected $want"; cat out.txt err.txt
    failures=$((failures + 1))
  fi
}

# gpu_probe COMMAND...: a first run on the GPU, its output in out.txt; exits
# the test as skipped (77) where it was refused for want of a GPU or a CUDA
# build (status 3 naming them), as failed where it failed otherwise.
gpu_probe() {
  "$@" > out.txt 2>&1
  local status=$?
  if [ $status -eq 3 ] && grep -Eq "CUDA|GPU" out.txt; then
    echo "skipped: $(cat out.txt)"
    exit 77
  fi
  [ $status -eq 0 ] || { echo "FAIL: probe run exited $status"; cat out.txt; exit 1; }
}
