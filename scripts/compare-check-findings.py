#!/usr/bin/env python3
"""Runs `gpmx check` with two gpmx binaries on every seeded bug and on every
workload's correct code, and says whether their findings are the same: the
images checked, failed images, causes and each cause's smallest image (the
crash point, what was lost and kept, the verdict). Times and the order in
which failures were found are left out: they vary from run to run.

  scripts/compare-check-findings.py OLD_GPMX NEW_GPMX [--only WORKLOAD] [--bugs-only] [--jobs N] [--max-images N]

Exit status 0 when every run agrees, 1 otherwise (the differences are printed).
"""
import argparse
import json
import subprocess
import sys
import tempfile

TIMING = {"seconds", "found_after_s", "found_after_images"}


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def check(gpmx, args, jobs, max_images):
    limit = ["--max-images", str(max_images)] if max_images is not None else []
    with tempfile.TemporaryDirectory(prefix="gpmx-compare-") as data:
        run = subprocess.run([gpmx, "check", *args, *limit, "--json", "--jobs", str(jobs), "--data", data],
                             capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise SystemExit(f"{gpmx} check {' '.join(args)} failed ({run.returncode}): {run.stderr.strip()}")
    # Where failing images were kept names the scratch directory: not a finding.
    report = strip(json.loads(run.stdout.replace(data, "DATA")))
    report["failures"] = sorted(report.get("failures", []), key=lambda f: json.dumps(f, sort_keys=True))
    return report


def runs(gpmx, only):
    listed = json.loads(subprocess.run([gpmx, "list", "--json"], capture_output=True, text=True, check=True).stdout)
    names = [w["name"] for w in (listed["workloads"] if isinstance(listed, dict) else listed)]
    bugs = subprocess.run([gpmx, "check", "--list-bugs"], capture_output=True, text=True).stdout.splitlines()
    out = [[name] for name in names]
    out += [[line.split()[0], "--bug", line.split()[1]] for line in bugs if line.strip()]
    return [r for r in out if not only or r[0] == only]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--only", help="one workload's runs")
    p.add_argument("--bugs-only", action="store_true", help="only the seeded bugs")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--max-images", type=int, help="gpmx check's --max-images (default: its own)")
    a = p.parse_args()
    differ = 0
    for args in runs(a.new, a.only):
        if a.bugs_only and "--bug" not in args:
            continue
        old, new = check(a.old, args, a.jobs, a.max_images), check(a.new, args, a.jobs, a.max_images)
        same = old == new
        differ += not same
        print(f"{'same' if same else 'DIFFERENT':9} gpmx check {' '.join(args)}: "
              f"{new['images']} images, {new['failed_images']} failed, {len(new['failures'])} causes")
        if not same:
            for key in sorted(set(old) | set(new)):
                if key != "failures" and old.get(key) != new.get(key):
                    print(f"    {key}: old {json.dumps(old.get(key))[:300]}")
                    print(f"    {key}: new {json.dumps(new.get(key))[:300]}")
            for i, (was, now) in enumerate(zip(old["failures"], new["failures"])):
                for key in sorted(set(was) | set(now)):
                    if was.get(key) != now.get(key):
                        print(f"    failure {i + 1} {key}: old {json.dumps(was.get(key))[:400]}")
                        print(f"    failure {i + 1} {key}: new {json.dumps(now.get(key))[:400]}")
            if len(old["failures"]) != len(new["failures"]):
                print(f"    causes: old {len(old['failures'])}, new {len(new['failures'])}")
    print(f"{differ} of the runs differ" if differ else "every run agrees")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
