#!/usr/bin/env bash
# The BaM workloads on the GPU (--backend cuda), every method: kernel
# threads on the GPU, the emulated controllers serving their queues from
# host threads; each result verified by the host. Then the block benchmark
# on the GPU. Exits 77 (skipped) where no GPU or no CUDA build is present.
set -u
gpmx="$1"
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
bam="$(mktemp -d)" || exit 1
trap 'rm -rf "$work" "$bam"' EXIT

gpu_probe "$gpmx" run bam-vectoradd -p elements=4096 -p cache_kib=256 -p threads=256 --backend cuda --quiet --data "$bam/probe"

# The device files live on a disk (O_DIRECT), not in /dev/shm. mmap needs
# a GPU that faults in a mapping's pages: where it cannot, the refusal must
# say so (exit 3).
graph="-p nodes=4096 -p cache_kib=64 -p line=1024 -p threads=1024"
for spec in "bam-bfs:0 1 2 3 4 5:$graph" "bam-cc:0 1 2 3 4 5:$graph" \
            "bam-query:0 1 2:-p rows=65536 -p cache_kib=256 -p threads=1024 -p query=3" \
            "bam-vectoradd:0 1 2:-p elements=65536 -p cache_kib=1024 -p threads=1024"; do
  IFS=: read -r w methods args <<< "$spec"
  for m in $methods; do
    # shellcheck disable=SC2086
    "$gpmx" run "$w" $args -p method=$m --backend cuda --quiet --data "$bam" >out.txt 2>&1
    status=$?
    if [ $status -eq 3 ] && grep -q "pageable" out.txt; then
      echo "$w method=$m: $(cat out.txt)"
      continue
    fi
    [ $status -eq 0 ] || { echo "FAIL: $w method=$m on the GPU exited $status"; cat out.txt; failures=$((failures + 1)); continue; }
    grep -q "NVIDIA\|sm_" out.txt || { echo "FAIL: $w: the GPU is not named"; cat out.txt; failures=$((failures + 1)); }
    expect 0 "$gpmx" verify "$w" --data "$bam"
  done
done
# A cache smaller than what the threads pin at once (8 warps pinning a page
# of a, b and c each; 16 lines): named with its size after the GPU threads
# saw every line pinned for seconds, not a kernel spinning for ever.
expect 3 "$gpmx" run bam-vectoradd -p elements=16384 -p cache_kib=64 -p threads=256 --backend cuda --quiet --data "$bam/small"
grep -q "cache 'bam' (16 lines of 4096 bytes): every line was pinned" out.txt err.txt ||
  { echo "FAIL: a GPU cache with every line pinned not named"; cat out.txt; failures=$((failures + 1)); }
expect 0 "$gpmx" bench storage --backend cuda --file-mib 16 --threads 256 --reads 4 --repeat 1 --no-fio --json --dir "$bam"
grep -q '"queues_randread_4096_t256"' out.txt || { echo "FAIL: bench storage on the GPU has no row"; cat out.txt; failures=$((failures + 1)); }

exit $((failures > 0))
