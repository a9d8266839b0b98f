#!/usr/bin/env bash
# gpmx check end to end: a correct workload passes (0), a seeded bug is
# found (1) with its report, a trace file is checked with an outside
# command (0, and 1 when the command fails), bad arguments give 2.
set -u
gpmx="$1"
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
has() {  # has TEXT: out.txt contains TEXT
  grep -q -- "$1" out.txt || { echo "FAIL: no '$1' in the output"; cat out.txt; failures=$((failures + 1)); }
}

expect 0 "$gpmx" check reduction --style sbrp --max-images 200 --json
has '"failed_images": 0'
expect 0 "$gpmx" check multiqueue --model strict --max-images 100
has 'search complete'
expect 0 "$gpmx" check --list-bugs
[ "$(wc -l < out.txt)" -ge 10 ] || { echo "FAIL: fewer than 10 seeded bugs listed"; cat out.txt; failures=$((failures + 1)); }
expect 1 "$gpmx" check reduction --bug block-scope-release --first
has 'scoped persistency bug'
has 'crash:'
has 'failure-1'
# The kept image fails again outside the checker.
expect 0 "$gpmx" recover reduction --data gpmx-data/check/reduction/failure-1 --quiet
expect 1 "$gpmx" verify reduction --data gpmx-data/check/reduction/failure-1
[ ! -e gpmx-data/check/reduction/images ] || { echo "FAIL: scratch images left behind"; failures=$((failures + 1)); }
expect 0 "$gpmx" check reduction --bug block-scope-release --model sbrp-promoted --max-images 300 --json
has '"failed_images": 0'

# Several trace schedules, a row each; --first stops at the first that
# fails, its smallest image kept under seed-S.
expect 0 "$gpmx" check reduction --style sbrp --schedules 2 --max-images 100 --json
has '"schedules_checked": 2'
has '"failing_seeds": \[\]'
has '"seed": 2'
expect 1 "$gpmx" check reduction --bug block-scope-release --schedules 3 --first
has 'schedules  *1 of 3 checked'
has 'failing seeds  *1$'
has 'in the schedule of seed 1: a scoped persistency bug'
[ -d gpmx-data/check/reduction/seed-1/failure-1 ] || { echo "FAIL: no seed-1/failure-1 kept"; failures=$((failures + 1)); }
expect 2 "$gpmx" check reduction --schedules 0
expect 2 "$gpmx" check reduction --schedules 2 --at 3000

# A failure no rule explains says what recovery read (where read tracking
# works: x86-64, not under ThreadSanitizer).
expect 1 "$gpmx" check gpdb --bug log-tail-first --max-images 300
has 'no missing rule found'
if [[ $(uname -m) == x86_64 && -z ${GPMX_NO_READ_TRACKING:-} ]]; then
  has 'recovery read [0-9]* granules the program stored to'
  has 'read:     the store at careless_hcl.hpp'
fi

expect 0 "$gpmx" check reduction --style sbrp --at 3000 --at 3500 --json
has '"crash_points": 2'

# A trace file and an outside recovery-and-check command.
expect 0 "$gpmx" trace reduction --style sbrp --data traced -o reduction.trace
check_cmd="'$gpmx' recover reduction --data \"\$GPMX_IMAGE_DIR\" --quiet && '$gpmx' verify reduction --data \"\$GPMX_IMAGE_DIR\""
expect 0 "$gpmx" check --trace reduction.trace --root traced --model sbrp --max-images 60 --verify "$check_cmd" --json
has '"failed_images": 0'
# A seeded bug's trace with its recovery as an outside command: the
# unexplained failure says what the command read (preloaded tracking).
expect 0 "$gpmx" trace gpdb --bug log-tail-first --data traced-bug -o gpdb-bug.trace --json
has '"bug": "log-tail-first"'
gpdb_cmd="'$gpmx' recover gpdb --data \"\$GPMX_IMAGE_DIR\" --quiet && '$gpmx' verify gpdb --data \"\$GPMX_IMAGE_DIR\""
expect 1 "$gpmx" check --trace gpdb-bug.trace --root traced-bug --model epoch --max-images 300 --verify "$gpdb_cmd"
has 'no missing rule found'
if [[ $(uname -m) == x86_64 && -z ${GPMX_NO_COMMAND_READ_TRACKING:-} ]]; then
  has 'the verify command read [0-9]* granules the program stored to'
  has 'read:     the store at '
fi
# Image directories are kept from image to image: what a command leaves in
# one (a new file; garbage written over every file after verifying) is
# gone before the next image (one job: two directories, each used 30 times).
left="\"\$GPMX_IMAGE_DIR/left-behind\""
garble='for f in "$GPMX_IMAGE_DIR"/reduction/*; do printf garbage | dd of="$f" bs=1 seek=64 conv=notrunc status=none; done'
expect 0 "$gpmx" check --trace reduction.trace --root traced --model sbrp --max-images 60 --jobs 1 \
  --verify "test ! -e $left && touch $left && $check_cmd && $garble" --json
has '"failed_images": 0'
has '"images": 60'
expect 1 "$gpmx" check --trace reduction.trace --root traced --max-images 5 --verify "false"
# The verdict gives the command's exit code and the end of its stderr.
expect 1 "$gpmx" check --trace reduction.trace --root traced --max-images 5 --verify "echo the image is broken >&2; exit 3"
has "exited with code 3; its stderr ended with: the image is broken"
has 'single drops: '
# gpmx check binds symbols eagerly (LD_BIND_NOW in its own image only):
# the verify command does not inherit it.
expect 0 "$gpmx" check --trace reduction.trace --root traced --model sbrp --max-images 5 \
  --verify 'test -z "${LD_BIND_NOW+set}" && test -z "${GPMX_BOUND_EAGERLY+set}"'
expect 0 "$gpmx" check --trace reduction.trace --root traced --model sbrp --max-images 40 --verify true --json
has '"pairs_total"'
has '"single_drops"'

# Bad arguments: 2.
expect 2 "$gpmx" check no-such-workload
expect 2 "$gpmx" check reduction --bug no-such-bug
expect 2 "$gpmx" check reduction --model weak
expect 2 "$gpmx" check reduction --strategy shuffle
expect 2 "$gpmx" check reduction --granularity 3
expect 2 "$gpmx" check reduction --images-per-worker 0
expect 2 "$gpmx" check reduction --at 999999999
expect 2 "$gpmx" check --trace reduction.trace
expect 2 "$gpmx" check
# A trace file that is not one: 3.
echo "not a trace" > bad.trace
expect 3 "$gpmx" check --trace bad.trace --verify true

exit $((failures > 0))
