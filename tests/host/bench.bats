#!/usr/bin/env bats
# make bench's trial knobs (tests/bench/bench), checked on the host before
# any VM boots: a count that is not a positive number is one clear error.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
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
