#!/usr/bin/env bash
# The workload commands end to end, with their exit statuses:
# run --crash-after, verify (1: in flight), recover, verify (0),
# bad arguments (2), missing data (3), and recovery killed part-way.
set -u
gpmx="$1"
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

small="-p sets=256 -p batch=64 -p batches=6"
expect 0 "$gpmx" run gpkvs $small --crash-after 700 --quiet
grep -q "SIGKILL after crash point 70[0-9]" out.txt || { echo "FAIL: no crash reported"; cat out.txt; failures=$((failures + 1)); }
expect 1 "$gpmx" verify gpkvs
grep -q "recover first" out.txt || { echo "FAIL: verify did not ask for recovery"; failures=$((failures + 1)); }
# Recovery killed at its 3rd crash point, then run again: the second one
# repairs. With few entries to undo (how many the crash left depends on how
# the threads interleaved) the first may finish before its 3rd crash point;
# then the second finds nothing in flight. Verify below checks the result.
expect 0 "$gpmx" recover gpkvs --crash-after 3 --json
cp out.txt first-recover.txt
expect 0 "$gpmx" recover gpkvs --json
if grep -q '"crashed": true' first-recover.txt; then
  grep -q '"repaired": true' out.txt || { echo "FAIL: recovery did nothing"; cat out.txt; failures=$((failures + 1)); }
else
  grep -q '"crashed": false' first-recover.txt && grep -q 'no batch in flight' out.txt ||
    { echo "FAIL: recovery runs"; cat first-recover.txt out.txt; failures=$((failures + 1)); }
fi
expect 0 "$gpmx" verify gpkvs --json
grep -q '"ok": true' out.txt || { echo "FAIL: verify not ok"; failures=$((failures + 1)); }
expect 0 "$gpmx" run gpkvs $small --style sbrp --json --data other
grep -q '"style": "sbrp"' out.txt || { echo "FAIL: style not sbrp"; failures=$((failures + 1)); }
expect 0 "$gpmx" verify gpkvs --data other
expect 0 "$gpmx" list --json
# Killed by time, wherever it is (as a GPU kernel in flight would be), then
# recovered and verified.
expect 0 "$gpmx" run gpkvs -p sets=4096 -p batch=1024 -p batches=100000 --kill-after-ms 400 --quiet --data timed
grep -q "SIGKILL after 400 ms" out.txt || { echo "FAIL: no timed kill reported"; cat out.txt; failures=$((failures + 1)); }
expect 0 "$gpmx" recover gpkvs --data timed --quiet
expect 0 "$gpmx" verify gpkvs --data timed
# The GPU back end: where no GPU (or no CUDA in this build) is, exit 3 naming
# what is missing; where one is, the run must verify.
"$gpmx" run reduction -p elements=4096 -p threads=16 -p per_thread=64 --backend cuda --quiet --data gpu >out.txt 2>&1
status=$?
if [ $status -eq 3 ]; then
  grep -Eq "CUDA|GPU" out.txt || { echo "FAIL: --backend cuda refused without naming why"; cat out.txt; failures=$((failures + 1)); }
elif [ $status -eq 0 ]; then
  grep -q "NVIDIA\|sm_" out.txt || { echo "FAIL: the GPU is not named"; cat out.txt; failures=$((failures + 1)); }
  expect 0 "$gpmx" verify reduction --backend cuda --data gpu
else
  echo "FAIL: --backend cuda exited $status"; cat out.txt; failures=$((failures + 1))
fi
expect 2 "$gpmx" run gpkvs --backend tpu
GPMX_GROUP_SYNC=bogus "$gpmx" run gpkvs $small --quiet --data badsync >out.txt 2>&1
status=$?
[ $status -eq 2 ] && grep -q "GPMX_GROUP_SYNC" out.txt ||
  { echo "FAIL: a bad GPMX_GROUP_SYNC gave exit $status"; cat out.txt; failures=$((failures + 1)); }
# Restoration on the GPU forks children that each open a session: without a
# GPU the probe child's reason comes back as exit 3.
"$gpmx" bench workloads --backend cuda --restoration --only gpkvs --small --repeat 1 --json >out.txt 2>&1
status=$?
if [ $status -eq 3 ]; then
  grep -Eq "CUDA|GPU" out.txt || { echo "FAIL: bench --backend cuda refused without naming why"; cat out.txt; failures=$((failures + 1)); }
elif [ $status -eq 0 ]; then
  grep -q '"gpkvs_restore"' out.txt || { echo "FAIL: no restoration row on the GPU"; cat out.txt; failures=$((failures + 1)); }
else
  echo "FAIL: bench workloads --backend cuda --restoration exited $status"; cat out.txt; failures=$((failures + 1))
fi
# Bad arguments: 2.
expect 2 "$gpmx" run no-such-workload
expect 2 "$gpmx" run gpkvs -p no_such_param=1
expect 2 "$gpmx" run gpkvs -p sets=zero
expect 2 "$gpmx" run gpkvs --style strict
expect 2 "$gpmx" run gpkvs -p sets=0 --crash-after 5
expect 2 "$gpmx" run gpkvs --durability fast
expect 2 "$gpmx" verify
# No data: 3.
expect 3 "$gpmx" verify gpkvs --data empty-dir
exit $((failures > 0))
