#!/usr/bin/env bash
# The transaction benchmarks through the command line: a run in each helper
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
# Adaptive with one block, which starts with helpers off: its commits reach
# the helper warp only through the block's copy of the switch, which the
# helper refreshes while the block runs (a threshold of 0 switches on at the
# first slice that saw a record, and off only after five 1 ms slices saw
# none, however loaded the machine; one never reached leaves every record
# to the committers).
one=(-p accounts=128 -p blocks=1 -p threads=64 -p per_thread=32 -p batches=1 -p ring=64 -p helpers=2 -p slice_us=1000)
expect 0 "$gpmx" run tx-atm "${one[@]}" -p threshold_mbps=0 --data tx --json
grep -q '"records_by_helpers": 0.0' out.txt && { echo "FAIL: adaptive switched on, no record reached the helper"; cat out.txt; failures=$((failures + 1)); }
grep -q '"helper_switches": 0.0' out.txt && { echo "FAIL: adaptive never switched at a threshold of 0"; cat out.txt; failures=$((failures + 1)); }
expect 0 "$gpmx" run tx-atm "${one[@]}" -p threshold_mbps=100000000 --data tx --json
grep -q '"records_by_helpers": 0.0' out.txt || { echo "FAIL: adaptive below its threshold used the helper"; cat out.txt; failures=$((failures + 1)); }
# Log rings truncated while the kernel runs: far smaller than a launch's
# records, the result is still the sequential reference, in the timed mode
# too (the truncator's persists timed as host write-backs); the checker
# follows the truncator's stores and finds one that moves the rings on
# before the home image is durable.
expect 0 "$gpmx" run tx-atm "${small[@]}" -p per_thread=16 -p helpers=1 -p log_entries=96 --data tx --json
grep -q '"records_applied_while_running": 0.0' out.txt && { echo "FAIL: rings: nothing applied while running"; cat out.txt; failures=$((failures + 1)); }
expect 0 "$gpmx" verify tx-atm --data tx
grep -q 'balances match the sequential reference' out.txt || { echo "FAIL: rings verify"; cat out.txt; failures=$((failures + 1)); }
expect 0 "$gpmx" sim tx-atm "${small[@]}" -p helpers=1 -p log_entries=96 --data tx-sim --json
grep -q '"host_pm_write_bytes": 0,' out.txt && { echo "FAIL: sim rings: the truncator persisted nothing"; cat out.txt; failures=$((failures + 1)); }
expect 0 "$gpmx" verify tx-atm --data tx-sim
# The kernel's stores still become durable in an order the model allows
# with the truncator's write-backs beside them.
expect 0 "$gpmx" sim tx-atm "${small[@]}" -p helpers=1 -p log_entries=96 --data tx-sim --check-order
grep -q "no store durable before a store ordered before it" out.txt || { echo "FAIL: sim rings: durable order"; cat out.txt err.txt; failures=$((failures + 1)); }
rings=(-p accounts=64 -p blocks=3 -p threads=64 -p per_thread=3 -p batches=2 -p ring=64 -p helpers=1 -p log_entries=96)
expect 0 "$gpmx" check tx-atm "${rings[@]}" --max-images 200 --jobs 2
grep -q "failed images    0" out.txt || { echo "FAIL: check of rings"; cat out.txt err.txt; failures=$((failures + 1)); }
expect 1 "$gpmx" check tx-atm "${rings[@]}" --bug truncate-before-home --first --jobs 2
grep -q "agent 'tx-log-truncator'" out.txt || { echo "FAIL: check of a truncator that truncates first"; cat out.txt err.txt; failures=$((failures + 1)); }
expect 2 "$gpmx" run tx-atm "${small[@]}" -p log_entries=40 --data tx
grep -q "log_entries=40" out.txt err.txt || { echo "FAIL: a too-small ring not named"; cat out.txt err.txt; failures=$((failures + 1)); }
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
# The hash table: a run with helpers verifies; its figures are printed.
hsmall=(-p base=512 -p extended=4096 -p blocks=3 -p threads=64 -p per_thread=3 -p batches=2 -p ring=64)
expect 0 "$gpmx" run tx-hash "${hsmall[@]}" -p helpers=1 -p nvram_mbps=100000 --data tx --json
grep -q '"median_occupancy"' out.txt || { echo "FAIL: tx-hash figures"; cat out.txt; failures=$((failures + 1)); }
expect 0 "$gpmx" verify tx-hash --data tx
grep -q 'keys inserted, each once' out.txt || { echo "FAIL: tx-hash verify"; cat out.txt; failures=$((failures + 1)); }
expect 2 "$gpmx" run tx-hash -p base=16 -p extended=16 --data tx
grep -q "extended=16" out.txt err.txt || { echo "FAIL: extended=16 not named"; cat out.txt err.txt; failures=$((failures + 1)); }
# The sweep, small: every mode's row, speedups against helpers off.
expect 0 "$gpmx" bench tx --small --repeat 1 --config A1 --config H2 --nvram-mbps 0 --nvram-mbps 400 --json
for row in tx_A1_native_off tx_A1_400MBps_on tx_H2_400MBps_adaptive; do
  grep -q "\"$row\"" out.txt || { echo "FAIL: bench tx row $row"; cat out.txt; failures=$((failures + 1)); }
done
grep -q '"vs_best_fixed"' out.txt || { echo "FAIL: bench tx vs_best_fixed"; failures=$((failures + 1)); }
# The timed sweep: simulated time with the NVM model's write bandwidth.
expect 0 "$gpmx" bench tx --small --timed --config A1 --nvram-mbps 1600 --nvram-mbps 484000 -p blocks=2 --json
for row in tx_A1_1600MBps_off tx_A1_484GBps_adaptive; do
  grep -q "\"$row\"" out.txt || { echo "FAIL: bench tx --timed row $row"; cat out.txt; failures=$((failures + 1)); }
done
grep -q 'simulated on sbrp-table1' out.txt || { echo "FAIL: bench tx --timed says where"; failures=$((failures + 1)); }
# The threshold calibrated with the write-pressure test, then used by the
# adaptive rows; it cannot also be given.
expect 0 "$gpmx" bench tx --small --timed --calibrate --config A1 --nvram-mbps 1600 -p per_thread=8 --json
for row in calibrate_1600MBps_32t calibrate_1600MBps_threshold tx_A1_1600MBps_adaptive; do
  grep -q "\"$row\"" out.txt || { echo "FAIL: bench tx --calibrate row $row"; cat out.txt; failures=$((failures + 1)); }
done
grep -q '"off_persist_mbps"' out.txt || { echo "FAIL: bench tx --calibrate bandwidths"; failures=$((failures + 1)); }
grep -q '"threshold_mbps": 200.0' out.txt && { echo "FAIL: bench tx --calibrate kept the paper's threshold"; failures=$((failures + 1)); }
expect 0 "$gpmx" bench tx --small --timed --calibrate-only --config A1 --nvram-mbps 484000 -p per_thread=8 --out cal.json
grep -q "calibrate_484GBps_threshold" out.txt || { echo "FAIL: --calibrate-only"; cat out.txt; failures=$((failures + 1)); }
grep -q "tx_A1" out.txt && { echo "FAIL: --calibrate-only ran the sweep"; cat out.txt; failures=$((failures + 1)); }
# A saved calibration gives its thresholds to a later sweep, by bandwidth.
expect 0 "$gpmx" bench tx --small --timed --calibration cal.json --config A1 --nvram-mbps 484000 -p per_thread=8 --json
grep -q '"tx_A1_484GBps_adaptive"' out.txt || { echo "FAIL: --calibration sweep"; cat out.txt; failures=$((failures + 1)); }
grep -q '"threshold_mbps": 200.0' out.txt && { echo "FAIL: --calibration kept the paper's threshold"; failures=$((failures + 1)); }
expect 2 "$gpmx" bench tx --small --timed --calibration cal.json --config A1 --nvram-mbps 12000
grep -q "no threshold for 12000 MB/s" out.txt err.txt || { echo "FAIL: --calibration without the bandwidth"; cat out.txt err.txt; failures=$((failures + 1)); }
expect 2 "$gpmx" bench tx --small --timed --calibrate --threshold-mbps 500 --config A1 --nvram-mbps 1600
grep -q "threshold-mbps" out.txt err.txt || { echo "FAIL: --calibrate with --threshold-mbps not named"; cat out.txt err.txt; failures=$((failures + 1)); }
expect 2 "$gpmx" bench tx --small --timed --config A1 --nvram-mbps 0
expect 2 "$gpmx" bench tx --small --config A1 --set nvm.write_gbs=3
expect 2 "$gpmx" bench tx --small --config Z9
grep -q "Z9" out.txt err.txt || { echo "FAIL: bench tx config not named"; cat out.txt err.txt; failures=$((failures + 1)); }
exit $((failures > 0))
