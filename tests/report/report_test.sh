#!/usr/bin/env bash
# Test of `gpmx report` (tools/report/gpmx_report.py) on the JSON fixtures
# beside this script.
#
# Usage: tests/report/report_test.sh 'COMMAND PREFIX'
#   e.g. tests/report/report_test.sh 'build/release/bin/gpmx report'
#        tests/report/report_test.sh 'python3 tools/report/gpmx_report.py'
# The prefix is split on spaces; several arguments are taken as the command
# itself. It is run as: PREFIX RESULTS.json... -o DIR.
#
# Checks:
# - every good fixture (fixtures/*.json not named bad_*) in one run: exit 0,
#   each expected PNG exists, is a PNG (signature and IHDR) of the expected
#   width x height, is named on stdout and linked from report.md, and no
#   other PNG is written;
# - two inputs of one kind give two numbered figures;
# - each bad fixture (fixtures/bad_*.json), and a file that does not exist:
#   exit 2, the file's name on stderr, no Python traceback, no report.md;
# - without matplotlib: exit 3 naming python3-matplotlib, no traceback.
# Exit 0 when all pass; 1 with a message for each failure.
set -u

if [ $# -eq 0 ] || [ -z "$1" ]; then
  echo "usage: $0 'COMMAND PREFIX' (e.g. 'build/release/bin/gpmx report')" >&2
  exit 2
fi
if [ $# -gt 1 ]; then
  cmd=("$@")
else
  read -r -a cmd <<< "$1"
fi

here=$(cd "$(dirname "$0")" && pwd)
fixtures="$here/fixtures"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpmx-report-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Expected figures of the good fixtures: file, width, height (pixels).
expected=(
  "exec_ratios.png 900 400"
  "pm_logs.png 700 400"
  "pm_checkpoint.png 700 400"
  "workloads_throughput.png 1000 450"
  "workloads_amplification.png 700 400"
  "workloads_restoration.png 1000 450"
  "gpkvs_vs_rocksdb.png 700 400"
  "checkpoint.png 1000 450"
  "check_find.png 1100 700"
  "check_reports.png 1100 700"
  "sim_figure.png 1200 450"
  "sim_runs.png 1000 450"
  "tx_speedups.png 1200 450"
  "tx_calibration.png 1200 450"
)

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Prints "WIDTH HEIGHT" of a PNG, or fails with a reason.
png_size() {
  python3 - "$1" <<'PY'
import struct, sys
with open(sys.argv[1], "rb") as f:
    head = f.read(24)
if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("not a PNG (bad signature)")
length, kind = struct.unpack(">I4s", head[8:16])
if kind != b"IHDR" or length != 13:
    sys.exit("not a PNG (first chunk is not a 13-byte IHDR)")
w, h = struct.unpack(">II", head[16:24])
print(w, h)
PY
}

good=()
for f in "$fixtures"/*.json; do
  case "$(basename "$f")" in bad_*) ;; *) good+=("$f") ;; esac
done
[ ${#good[@]} -gt 0 ] || fail "no good fixtures in $fixtures"

# 1. Every good fixture at once.
out="$tmp/all"
"${cmd[@]}" "${good[@]}" -o "$out" > "$tmp/all.stdout" 2> "$tmp/all.stderr"
rc=$?
if [ $rc -ne 0 ]; then
  fail "good fixtures: exit $rc, expected 0; stderr: $(tail -n 5 "$tmp/all.stderr")"
fi
grep -q Traceback "$tmp/all.stderr" && fail "good fixtures: a Python traceback on stderr"
[ -f "$out/report.md" ] || fail "good fixtures: no report.md"
for e in "${expected[@]}"; do
  read -r name w h <<< "$e"
  png="$out/$name"
  if [ ! -f "$png" ]; then
    fail "$name: not written"
    continue
  fi
  if ! size=$(png_size "$png" 2>&1); then
    fail "$name: $size"
    continue
  fi
  [ "$size" = "$w $h" ] || fail "$name: ${size/ /x} pixels, expected ${w}x${h}"
  grep -qF "]($name)" "$out/report.md" 2>/dev/null || fail "$name: report.md does not link it"
  grep -qF "$name" "$tmp/all.stdout" || fail "$name: not named on stdout"
done
n_png=$(find "$out" -maxdepth 1 -name '*.png' 2>/dev/null | wc -l)
[ "$n_png" -eq ${#expected[@]} ] || fail "good fixtures: $n_png PNGs written, expected ${#expected[@]}"

# 2. Two inputs of one kind: two figures, numbered in input order.
cp "$fixtures/bench_kvs.json" "$tmp/kvs-a.json"
cp "$fixtures/bench_kvs.json" "$tmp/kvs-b.json"
"${cmd[@]}" "$tmp/kvs-a.json" "$tmp/kvs-b.json" -o "$tmp/two" > /dev/null 2> "$tmp/two.stderr"
rc=$?
[ $rc -eq 0 ] || fail "two kvs inputs: exit $rc, expected 0; stderr: $(tail -n 5 "$tmp/two.stderr")"
for name in gpkvs_vs_rocksdb-1.png gpkvs_vs_rocksdb-2.png; do
  if size=$(png_size "$tmp/two/$name" 2>&1); then
    [ "$size" = "700 400" ] || fail "two kvs inputs: $name is ${size/ /x}, expected 700x400"
  else
    fail "two kvs inputs: $name: $size"
  fi
done

# 3. Bad inputs: exit 2, the file named on stderr, no traceback, nothing written.
bad=("$fixtures"/bad_*.json "$tmp/no-such-results.json")
[ -f "${bad[0]}" ] || fail "no bad fixtures in $fixtures"
for f in "${bad[@]}"; do
  name=$(basename "$f")
  rm -rf "$tmp/bad"
  "${cmd[@]}" "$f" -o "$tmp/bad" > "$tmp/bad.stdout" 2> "$tmp/bad.stderr"
  rc=$?
  [ $rc -eq 2 ] || fail "$name: exit $rc, expected 2"
  grep -qF "$name" "$tmp/bad.stderr" || fail "$name: stderr does not name the file: $(head -c 300 "$tmp/bad.stderr")"
  grep -q Traceback "$tmp/bad.stderr" && fail "$name: a Python traceback on stderr"
  [ -f "$tmp/bad/report.md" ] && fail "$name: report.md written for a bad input"
done

# 4. A bad input among good ones still fails the whole run.
rm -rf "$tmp/mixed"
"${cmd[@]}" "$fixtures/bench_kvs.json" "$fixtures/bad_malformed.json" -o "$tmp/mixed" > /dev/null 2> "$tmp/mixed.stderr"
rc=$?
[ $rc -eq 2 ] || fail "good + bad input: exit $rc, expected 2"
grep -qF "bad_malformed.json" "$tmp/mixed.stderr" || fail "good + bad input: stderr does not name bad_malformed.json"

# 5. No matplotlib: exit 3 with the package to install, no traceback. A
# module named matplotlib that fails to import stands in for a missing one;
# GPMX_REPORT_RERUN=1 stops the retry under /usr/bin/python3.
mkdir -p "$tmp/no-matplotlib"
echo 'raise ImportError("No module named matplotlib (test stand-in)")' > "$tmp/no-matplotlib/matplotlib.py"
PYTHONPATH="$tmp/no-matplotlib" GPMX_REPORT_RERUN=1 "${cmd[@]}" "$fixtures/bench_kvs.json" -o "$tmp/nompl" \
  > /dev/null 2> "$tmp/nompl.stderr"
rc=$?
[ $rc -eq 3 ] || fail "without matplotlib: exit $rc, expected 3"
grep -q "python3-matplotlib" "$tmp/nompl.stderr" || fail "without matplotlib: stderr does not say to install python3-matplotlib"
grep -q Traceback "$tmp/nompl.stderr" && fail "without matplotlib: a Python traceback on stderr"

if [ $failures -ne 0 ]; then
  echo "report test: $failures failure(s)" >&2
  exit 1
fi
echo "report test: all passed (${#good[@]} good fixtures, ${#expected[@]} figures, ${#bad[@]} bad inputs)"
