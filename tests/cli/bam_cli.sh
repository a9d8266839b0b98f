#!/usr/bin/env bash
# The storage (BaM) workloads through the command line: run and verify each
# on small data, a wrong result found by verify (exit 1), recover and the
# recoverable workloads' options refused by name (exit 2), verify without
# data (exit 3), several controllers per device, --backend cuda run (or refused naming why where there is
# no GPU), and the storage workloads in gpmx list.
set -u
gpmx="$1"
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

expect 0 "$gpmx" run bam-bfs -p nodes=2048 -p cache_kib=64 -p line=1024 -p threads=256 --json --data bam
grep -q '"method": "reuse"' out.txt || { echo "FAIL: bam-bfs method"; cat out.txt; failures=$((failures + 1)); }
expect 0 "$gpmx" verify bam-bfs --data bam --json
grep -q '"ok": true' out.txt || { echo "FAIL: bam-bfs verify"; cat out.txt; failures=$((failures + 1)); }
expect 0 "$gpmx" run bam-cc -p nodes=2048 -p cache_kib=64 -p line=1024 -p threads=256 -p method=1 --data bam --quiet
expect 0 "$gpmx" verify bam-cc --data bam
expect 0 "$gpmx" run bam-query -p rows=16384 -p cache_kib=256 -p threads=512 -p method=1 --json --data bam
grep -q '"io_amplification"' out.txt || { echo "FAIL: bam-query amplification"; cat out.txt; failures=$((failures + 1)); }
expect 0 "$gpmx" verify bam-query --data bam
expect 0 "$gpmx" run bam-vectoradd -p elements=16384 -p cache_kib=256 -p threads=256 --data bam --quiet
expect 0 "$gpmx" verify bam-vectoradd --data bam
# Four controllers share the device's four queue pairs; five are refused by name.
expect 0 "$gpmx" run bam-vectoradd -p elements=16384 -p cache_kib=256 -p threads=256 -p controllers=4 --data bam --quiet
expect 0 "$gpmx" verify bam-vectoradd --data bam
expect 2 "$gpmx" run bam-vectoradd -p elements=16384 -p controllers=5 --data bam --quiet
grep -q "controllers=5 exceeds queues=4" out.txt err.txt || { echo "FAIL: controllers past queues not named"; cat out.txt err.txt; failures=$((failures + 1)); }
# A wrong level: verify names the node and exits 1.
printf '\x07\x00\x00\x00' | dd of=bam/bam-bfs/result bs=1 seek=0 conv=notrunc status=none
expect 1 "$gpmx" verify bam-bfs --data bam
grep -q "node 0 has level 7" out.txt err.txt || { echo "FAIL: wrong level not named"; cat out.txt; failures=$((failures + 1)); }
expect 2 "$gpmx" recover bam-bfs --data bam
grep -q "nothing to recover" out.txt err.txt || { echo "FAIL: recover not refused"; cat out.txt; failures=$((failures + 1)); }
expect 2 "$gpmx" run bam-bfs --crash-after 5 --data bam
grep -q "\-\-crash-after does not apply" out.txt err.txt || { echo "FAIL: crash-after not refused"; cat out.txt; failures=$((failures + 1)); }
expect 2 "$gpmx" run bam-query -p colour=3 --data bam
# On the GPU where there is one; elsewhere refused with the reason (exit 3).
"$gpmx" run bam-vectoradd -p elements=16384 -p cache_kib=256 -p threads=256 --backend cuda --quiet --data gpu >out.txt 2>&1
status=$?
if [ $status -eq 3 ]; then
  grep -Eq "CUDA|GPU" out.txt || { echo "FAIL: --backend cuda refused without naming why"; cat out.txt; failures=$((failures + 1)); }
elif [ $status -eq 0 ]; then
  expect 0 "$gpmx" verify bam-vectoradd --data gpu
else
  echo "FAIL: bam-vectoradd --backend cuda exited $status"; cat out.txt; failures=$((failures + 1))
fi
expect 3 "$gpmx" verify bam-query --data empty
expect 0 "$gpmx" list --json
grep -q '"name": "bam-vectoradd"' out.txt || { echo "FAIL: list lacks the storage workloads"; failures=$((failures + 1)); }
exit $((failures > 0))
