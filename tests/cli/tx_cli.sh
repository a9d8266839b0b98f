#!/usr/bin/env bash
# The transaction benchmark through the command line: a run in each helper
# mode verifies against the sequential reference; a run killed mid-way
# recovers to a prefix that keeps the total; bad parameters are refused by
# name (exit 2); verify without data exits 3.
set -u
gpmx="$1"
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

small=(-p accounts=128 -p blocks=4 -p threads=64 -p per_thread=4 -p batches=2 -p ring=64)
for helpers in 0 1 2; do
  expect 0 "$gpmx" run tx-atm "${small[@]}" -p helpers=$helpers -p durable=1 --data tx --json
  grep -q '"operations": 2048' out.txt || { echo "FAIL: tx-atm helpers=$helpers operations"; cat out.txt; failures=$((failures + 1)); }
  expect 0 "$gpmx" verify tx-atm --data tx --json
  grep -q 'balances match the sequential reference' out.txt || { echo "FAIL: tx-atm helpers=$helpers verify"; cat out.txt; failures=$((failures + 1)); }
done
expect 0 "$gpmx" run tx-atm "${small[@]}" --style sbrp -p nvram_mbps=400 --data tx --quiet
expect 0 "$gpmx" verify tx-atm --data tx
# Killed at a crash point: recovery applies the durable prefix.
"$gpmx" run tx-atm "${small[@]}" --crash-after 300 --data tx >out.txt 2>err.txt
expect 0 "$gpmx" recover tx-atm --data tx
grep -q "log truncated" out.txt || { echo "FAIL: recover report"; cat out.txt; failures=$((failures + 1)); }
expect 0 "$gpmx" verify tx-atm --data tx
expect 2 "$gpmx" run tx-atm -p helpers=3 --data tx
grep -q "helpers=3" out.txt err.txt || { echo "FAIL: helpers=3 not named"; cat out.txt err.txt; failures=$((failures + 1)); }
expect 2 "$gpmx" run tx-atm -p threads=48 --data tx
grep -q "threads=48" out.txt err.txt || { echo "FAIL: threads=48 not named"; cat out.txt err.txt; failures=$((failures + 1)); }
expect 3 "$gpmx" verify tx-atm --data empty
exit $((failures > 0))
