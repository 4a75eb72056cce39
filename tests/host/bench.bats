#!/usr/bin/env bats
# make bench's trial knobs (tests/bench/bench), checked on the host before
# any VM boots: a count that is not a positive number is one clear error;
# and its workload tests/tools/sleepers' options for the spread layout.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
}

teardown() {
	# A sleepers left running by a failed test, and its processes.
	if [[ -n ${SPID:-} ]]; then
		kill $(pgrep -P "$SPID") "$SPID" 2>/dev/null || true
	fi
}

@test "bench: a zero, negative or non-numeric count is refused, exit 2, nothing run" {
	for bad in BENCH_OOMS=0 BENCH_PASSES=-1 BENCH_CLI=x BENCH_ATTACH=1.5; do
		run env "$bad" "$TOP/tests/bench/bench"
		[ "$status" -eq 2 ]
		[ "$output" = "bench: ${bad%%=*} must be a positive number, not '${bad#*=}'" ]
	done
}

@test "bench: BENCH_TASKS takes positive numbers only" {
	run env BENCH_TASKS="100 1e3" "$TOP/tests/bench/bench"
	[ "$status" -eq 2 ]
	[ "$output" = "bench: BENCH_TASKS takes positive numbers, not '1e3'" ]
}

@test "bench: BENCH_LAYOUTS takes shared and spread only, BENCH_RUNS a positive number" {
	run env BENCH_LAYOUTS="shared flat" "$TOP/tests/bench/bench"
	[ "$status" -eq 2 ]
	[ "$output" = "bench: BENCH_LAYOUTS takes shared and spread, not 'flat'" ]
	run env BENCH_RUNS=0 "$TOP/tests/bench/bench"
	[ "$status" -eq 2 ]
	[ "$output" = "bench: BENCH_RUNS must be a positive number, not '0'" ]
}

# The spread layout's processes (tests/tools/sleepers --fork --touch --into),
# on the host: sleepers is built here, check-host does not build the tools.
build_sleepers() {
	SLEEPERS=$BATS_TEST_TMPDIR/sleepers
	cc -O2 -Wall -Werror -o "$SLEEPERS" "$TOP/tests/tools/sleepers.c"
}

@test "sleepers: --touch and --into need --fork, --groups needs --into, bad sizes refused" {
	build_sleepers
	run "$SLEEPERS" --touch 32 3
	[ "$status" -eq 2 ]
	[ "$output" = "sleepers: --touch and --into need --fork (processes with their own mm)" ]
	run "$SLEEPERS" --fork --groups 4 3
	[ "$status" -eq 2 ]
	[ "$output" = "sleepers: --groups needs --into" ]
	run "$SLEEPERS" --fork --touch 0 3
	[ "$status" -eq 2 ]
	[ "$output" = "sleepers: bad --touch '0'" ]
}

@test "sleepers --fork --touch: every process has memory of its own, ready only once it has" {
	build_sleepers
	local ready=$BATS_TEST_TMPDIR/ready pid kids=() k own parent
	"$SLEEPERS" --fork --touch 4096 --ready "$ready" 3 3>&- &
	pid=$!
	SPID=$pid
	for _ in {1..100}; do [ -e "$ready" ] && break; sleep 0.1; done
	[ -e "$ready" ]
	mapfile -t kids < <(pgrep -P "$pid")
	[ "${#kids[@]}" -eq 3 ]
	# Anonymous RSS is per mm: each child's holds its 4 MiB, the parent's
	# does not (with a shared mm all four would show the same figure).
	parent=$(awk '$1 == "RssAnon:" { print $2 }' "/proc/$pid/status")
	for k in "${kids[@]}"; do
		own=$(awk '$1 == "RssAnon:" { print $2 }' "/proc/$k/status")
		echo "parent $parent KiB, child $k $own KiB"
		[ "$own" -ge 4096 ]
		[ "$own" -ge $((parent + 4096)) ]
	done
	kill "${kids[@]}" "$pid"
	SPID=
}

@test "sleepers --fork --into: a cgroup that is not there fails the start, no ready file" {
	build_sleepers
	local ready=$BATS_TEST_TMPDIR/ready
	run "$SLEEPERS" --fork --into "$BATS_TEST_TMPDIR/none" --groups 2 --ready "$ready" 2
	[ "$status" -eq 1 ]
	[ "$output" = "sleepers: process 1: $BATS_TEST_TMPDIR/none/g0: No such file or directory" ]
	[ ! -e "$ready" ]
}
