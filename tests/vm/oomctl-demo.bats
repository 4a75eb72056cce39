#!/usr/bin/env bats
# make demo's story (tests/vm/demo) really happens: in the VM, the policy
# chooses the smaller, lower-priority workload, and the demo cleans up.

load helpers
load oomctl-helpers

teardown() {
	oomctl_teardown
}

@test "make demo: cgprio kills batch, not the bigger web; status, events and the kernel log say so" {
	run "$TOP/tests/vm/demo"
	echo "$output"
	[ "$status" -eq 0 ]
	batch=$(sed -n 's/^batch: pid \([0-9]*\), 8 MiB$/\1/p' <<<"$output")
	web=$(sed -n 's/^web: pid \([0-9]*\)$/\1/p' <<<"$output")
	[ -n "$batch" ] && [ -n "$web" ]
	grep -q "killed $batch (hog) in /demo/batch, .*: cgroup prio 10 < 50" <<<"$output"
	grep -q "^last victim:  pid $batch (hog) in /demo/batch, policy_name demo$" <<<"$output"
	grep -q "invoked oom-killer: .*policy_name=demo$" <<<"$output"
	grep -q "Killed process $batch (hog)" <<<"$output"
	! grep -q "Killed process $web " <<<"$output"
	grep -q "^detached cgprio: " <<<"$output"
	# It leaves nothing behind.
	[ ! -e "$PINS/policy" ]
	[ ! -e /sys/fs/cgroup/demo ]
}
