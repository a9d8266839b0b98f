#!/usr/bin/env bash
# gpmx sim end to end: a workload runs in the timed mode and verifies (0),
# the report names what the issue asks for, the same run gives the same
# cycles, a different warp scheduler other cycles, --set changes the
# configuration it prints, --crash-at leaves images recovery accepts, and
# bad input gives 2 with a message naming it.
set -u
gpmx="$1"
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
has() {  # has TEXT: out.txt contains TEXT
  grep -q -- "$1" out.txt || { echo "FAIL: no '$1' in the output"; cat out.txt; failures=$((failures + 1)); }
}
has_err() {
  grep -q -- "$1" err.txt || { echo "FAIL: no '$1' in stderr"; cat err.txt; failures=$((failures + 1)); }
}
cycles() { python3 -c 'import json,sys; print(json.load(open("out.txt"))["simulated"]["kernel_ps"])'; }

# Each run on a fresh data directory; kernel buffers are placed canonically,
# so a run repeats exactly whatever else the process allocated (docs/sim.md).
expect 0 "$gpmx" sim reduction --style sbrp --json --data d1
has '"verified": true'
has '"kernel_cycles"'
has '"scheduler_cycles"'
has '"gddr_read"'
has '"persist_buffer"'
has '"model": "sbrp"'
first=$(cycles)
expect 0 "$gpmx" sim reduction --style sbrp --json --data d2
[ "$(cycles)" = "$first" ] || { echo "FAIL: the same run gave $(cycles) ps, then $first ps"; failures=$((failures + 1)); }
# The warp scheduler changes little in the workloads at test sizes (they
# wait on memory and persists); sim_tests' TimedValidation checks that it
# changes the cycles. Here: the configuration reaches the run.
expect 0 "$gpmx" sim multiqueue --json --config sbrp-table1-lrr --data d3
has '"sched.policy": "lrr"'
expect 0 "$gpmx" sim srad --set l1.size=32K --set pm.location=near --out report.json
has 'verified'
has 'sbrp-table1 with l1.size=32K pm.location=near'
python3 -c 'import json; p=json.load(open("report.json"))["config"]["parameters"]; assert p["l1.size"] in ("32K", "32768"), p["l1.size"]; assert p["pm.location"] == "near"' \
  || { echo "FAIL: the report's configuration does not show the --set values"; failures=$((failures + 1)); }
# A workload's own figures ride along (a transaction benchmark's commits,
# helper drains), less those in the host's seconds.
expect 0 "$gpmx" sim tx-atm -p helpers=1 --json --data d_tx
python3 -c 'import json; f=json.load(open("out.txt"))["workload_figures"]; assert f["commits"] > 0 and f["helper_drains"] > 0 and f["records_by_helpers"] == f["commits"], f; assert not any(k.endswith("_seconds") for k in f), f' \
  || { echo "FAIL: the report lacks the workload's figures or keeps host seconds"; failures=$((failures + 1)); }
expect 0 "$gpmx" sim tx-atm -p helpers=1 --data d_tx2
has "the workload's figures"
has 'median_occupancy'
expect 0 "$gpmx" sim multiqueue --set persist.model=gpm --json --data d5
has '"model": "gpm"'
# -p over the test sizes: said before the run, and in the report.
expect 0 "$gpmx" sim reduction -p seed=2 --data d6
has_err 'other parameters are its test sizes'
has 'parameters (test sizes)'
expect 0 "$gpmx" sim reduction -p seed=2 --json --data d6
has '"sizes": "test"'
gpm=$(cycles)
expect 0 "$gpmx" sim multiqueue --json --data d6
has '"model": "epoch"'
[ "$(cycles)" != "$gpm" ] || { echo "FAIL: GPM's fence and the epoch barrier gave the same time"; failures=$((failures + 1)); }
# A buffer of 5% of the L1 under the lazy policy: stores wait for entries,
# evictions meet ordering entries; the workload still verifies.
expect 0 "$gpmx" sim gpkvs --style sbrp --set persist.flush=lazy --set persist.buffer_percent=5 --json
has '"verified": true'
# A crash image at a cycle mid-run: the pool files as the simulated NVM held
# them, which recover and verify accept; a cycle past the end is the end.
expect 0 "$gpmx" sim hashmap --style sbrp --crash-at 20000 --json --data d7
has '"pm_writes_durable"'
python3 -c 'import json; c=json.load(open("out.txt"))["crash"]; assert 0 < c["pm_writes_durable"] < c["pm_writes"], c' \
  || { echo "FAIL: a crash mid-run should leave some PM writes durable and some not"; failures=$((failures + 1)); }
expect 0 "$gpmx" recover hashmap --data d7
has 'repaired'
expect 0 "$gpmx" verify hashmap --data d7
has 'verified'
expect 0 "$gpmx" sim gpkvs --crash-at 100000000 --data d8
has 'crash image at cycle 100000000'
expect 0 "$gpmx" verify gpkvs --data d8
# The hardware's durable order against the workload's persistency model.
expect 0 "$gpmx" sim scan --style sbrp --check-order --json --data d9
has '"durable_order"'
python3 -c 'import json; d=json.load(open("out.txt"))["durable_order"]; assert d["model"] == "sbrp" and d["violations"] == 0 and d["kernel_granule_stores"] > 0, d' \
  || { echo "FAIL: --check-order should check scan's stores against sbrp and find nothing"; failures=$((failures + 1)); }
expect 0 "$gpmx" sim gpkvs --check-order --data d10
has 'durable order against the epoch persist order'
# A seeded bug runs in its own style; at this cycle its image does not verify.
expect 0 "$gpmx" sim hashmap --bug log-after-update --crash-at 7000 --data d11
expect 0 "$gpmx" recover hashmap --data d11
expect 1 "$gpmx" verify hashmap --data d11
has 'the replay of 0 batches'
expect 2 "$gpmx" sim hashmap --bug no-such-bug
has_err 'no-such-bug'
# A crash halfway through the middle launch, and the recovery timed too.
expect 0 "$gpmx" sim hashmap --crash-at launch:mid:50% --time-recovery --json --data d12
python3 -c 'import json; r=json.load(open("out.txt"))["recovery"]; assert r["verified"] and r["kernel_cycles"] > 0 and r["repaired"], r' \
  || { echo "FAIL: the timed recovery should repair hashmap and verify"; failures=$((failures + 1)); }
# At the middle launch's last cycle gpKVS's batch is logged whole and not
# yet committed: recovery undoes it.
expect 0 "$gpmx" sim gpkvs --crash-at launch:mid:end --time-recovery --json --data d13
python3 -c 'import json; d=json.load(open("out.txt")); r=d["recovery"]; l=d["launches"][len(d["launches"]) // 2]; assert r["verified"] and r["kernel_cycles"] > 0 and "was undone" in r["what"] and d["crash"]["picoseconds"] < l["end_ps"], (r, d["crash"], l)' \
  || { echo "FAIL: a crash at the middle launch's end should leave gpkvs a batch to undo"; failures=$((failures + 1)); }
expect 2 "$gpmx" sim hashmap --crash-at launch:mid:ends
has_err "launch:mid:ends"
expect 2 "$gpmx" sim hashmap --crash-at launch:99:50%
has_err 'launches'
expect 2 "$gpmx" sim hashmap --crash-at launch:mid:150%
has_err '150%'
expect 2 "$gpmx" sim hashmap --time-recovery
has_err 'needs --crash-at'
expect 2 "$gpmx" sim reduction --crash-at soon
has_err 'soon'
expect 2 "$gpmx" sim bam-bfs --crash-at 5
has_err 'crash-at'
expect 0 "$gpmx" sim --list-configs
has 'sbrp-table1-near'
has 'l2.latency'

expect 2 "$gpmx" sim reduction --set l1.bogus=3
has_err 'l1.bogus'
expect 2 "$gpmx" sim reduction --set l1.size=lots
has_err 'lots'
expect 2 "$gpmx" sim reduction --set persist.flush=sometimes
has_err 'sometimes'
expect 2 "$gpmx" sim reduction --config no-such-gpu
has_err 'no-such-gpu'
expect 2 "$gpmx" sim no-such-workload
has_err 'no-such-workload'
expect 2 "$gpmx" sim
expect 2 "$gpmx" sim --bench --bench-warps 0
expect 2 "$gpmx" sim --bench --bench-only memory_fast
has_err "no kernel 'memory_fast'"
expect 0 "$gpmx" sim --bench --bench-only spin --bench-warps 64 --bench-iterations 4 --repeat 1
has 'spin'
if grep -q -e memory_bound -e compute_bound out.txt; then
  echo "FAIL: --bench-only spin ran other kernels"; cat out.txt; failures=$((failures + 1))
fi

exit $((failures != 0))
