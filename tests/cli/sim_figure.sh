#!/usr/bin/env bash
# gpmx sim figure end to end at the workloads' test sizes: every run
# verifies (0), the table names the paper's numbers, the JSON, CSV and run
# reports are written, each bar is the ratio of the runs' kernel times, and
# an unknown figure gives 2 with a message naming it.
set -u
gpmx="$1"
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
has() {
  grep -q -- "$1" out.txt || { echo "FAIL: no '$1' in the output"; cat out.txt; failures=$((failures + 1)); }
}

expect 0 "$gpmx" sim figure 6 --small --jobs 2 --out figs --quiet
has 'SBRP-near'
has 'geomean'
has '(1.14)'
[ -f figs/figure-6/figure-6.json ] && [ -f figs/figure-6/figure-6.csv ] \
  || { echo "FAIL: no figure-6.json or .csv"; failures=$((failures + 1)); }
[ ! -d figs/figure-6/data ] || { echo "FAIL: the runs' data directories were left behind"; failures=$((failures + 1)); }
python3 - <<'PY' || { echo "FAIL: the figure's JSON does not add up"; failures=$((failures + 1)); }
import json, math
f = json.load(open("figs/figure-6/figure-6.json"))
assert f["figure"] == "6" and len(f["series"]) == 5, f.keys()
assert all(r["verified"] for r in f["runs"]), [r for r in f["runs"] if not r["verified"]]
for s in f["series"]:
    for b in s["bars"]:
        assert b["gpmx"] is not None and math.isclose(b["gpmx"], b["baseline_kernel_ps"] / b["subject_kernel_ps"]), b
    if s["name"] == "Epoch-far":
        assert all(math.isclose(b["gpmx"], 1.0) for b in s["bars"]), s
PY
# --artifact-baseline: every epoch and GPM bar runs the sbrp program on its
# hardware with acquires and block barriers as barriers; the SBRP bars as before.
expect 0 "$gpmx" sim figure 6 --small --artifact-baseline --jobs 2 --out figs-artifact --quiet
python3 - <<'PY' || { echo "FAIL: --artifact-baseline did not run the bars as the artifact does"; failures=$((failures + 1)); }
import json
f = json.load(open("figs-artifact/figure-6/figure-6.json"))
assert f["artifact_baseline"] is True
assert all(r["verified"] for r in f["runs"]), [r for r in f["runs"] if not r["verified"]]
for r in f["runs"]:
    workload, style, sets, _ = r["run"].split("|")
    assert style == "sbrp", r
    assert ("persist.epoch_sync_barriers=true" in sets) == ("persist.model=sbrp" not in sets), r
PY
expect 0 "$gpmx" sim figure 7 --small --jobs 2 --out figs --json --quiet
has '"scopes (far)"'
# Figure 11: the logged workloads crash at the last cycle of their middle
# launch, reduction and scan early in it; each recovery is timed, and each
# bar is the ratio of the recoveries' kernel times.
expect 0 "$gpmx" sim figure 11 --small --jobs 2 --out figs --quiet
has 'SBRP-far'
has 'SBRP-near'
has '(1.10)'
python3 - <<'PY' || { echo "FAIL: figure 11's JSON does not add up"; failures=$((failures + 1)); }
import json, math
f = json.load(open("figs/figure-11/figure-11.json"))
assert all(r["verified"] for r in f["runs"]), [r for r in f["runs"] if not r["verified"]]
for r in f["runs"]:
    workload = r["run"].split("|")[0]
    point = "launch:mid:10%" if workload in ("reduction", "scan") else "launch:mid:end"
    assert r["run"].endswith("--time-recovery --crash-at " + point), r["run"]
for s in f["series"]:
    for b in s["bars"]:
        if b["gpmx"] is not None:
            assert math.isclose(b["gpmx"], b["subject_recovery_ps"] / b["baseline_recovery_ps"]), b
PY
# BaM's Figure 8: the graph methods through the timed device model; each
# bar the ratio of two methods' kernel times, every run verified.
expect 0 "$gpmx" sim figure bam-8 --small --jobs 2 --out figs --quiet
has 'coalescing + reuse over naive'
has '(11.90)'
python3 - <<'PY' || { echo "FAIL: figure bam-8's JSON does not add up"; failures=$((failures + 1)); }
import json, math
f = json.load(open("figs/figure-bam-8/figure-bam-8.json"))
assert f["workloads"] == ["bam-bfs", "bam-cc"] and len(f["series"]) == 3, f.keys()
assert len(f["runs"]) == 8 and all(r["verified"] for r in f["runs"]), f["runs"]
assert f["params"] == {"bam-bfs": [], "bam-cc": []}, f["params"]  # --small: the test sizes
for s in f["series"]:
    for b in s["bars"]:
        assert b["gpmx"] is not None and math.isclose(b["gpmx"], b["baseline_kernel_ps"] / b["subject_kernel_ps"]), b
PY
expect 0 "$gpmx" sim figure bam-8-large --small --jobs 2 --out figs --json --quiet
python3 -c 'import json; f = json.load(open("out.txt")); assert [s["name"] for s in f["series"]] == ["coalescing over naive", "coalescing + reuse over naive"] and all(r["verified"] for r in f["runs"]), f' \
  || { echo "FAIL: figure bam-8-large"; failures=$((failures + 1)); }
expect 2 "$gpmx" sim figure bam-8 --small --artifact-baseline
grep -q "has none" err.txt || { echo "FAIL: --artifact-baseline on bam-8 was not refused by name"; cat err.txt; failures=$((failures + 1)); }
expect 2 "$gpmx" sim figure 6 --small --set persist.nonsense=1
grep -q "persist.nonsense" err.txt || { echo "FAIL: the error does not name the key"; cat err.txt; failures=$((failures + 1)); }
expect 2 "$gpmx" sim figure 42
grep -q "no figure '42'" err.txt || { echo "FAIL: the error does not name the figure"; cat err.txt; failures=$((failures + 1)); }

exit $((failures != 0))
