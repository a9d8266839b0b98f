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
