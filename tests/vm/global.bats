#!/usr/bin/env bats
# The kernel series in a real global OOM (tests/vm/run --mem 256M). The
# harness runs at oom_score_adj -1000; the hog at 0 is the only candidate
# worth killing. Without the series' fallback, a policy that leaves no
# victim makes the kernel panic ("System is deadlocked on memory").

load helpers

setup() {
	kmsg_mark
}

teardown() {
	common_teardown
}

global_hog() {
	start_hog "$CGROOT" 1024
	reap "$HOG_PID" 300
	[ "$REAPED" = 137 ]
	kmsg_since_mark | grep -q "Out of memory: Killed process $HOG_PID (hog)"
}

@test "global OOM, no program: the kernel heuristic kills the hog" {
	global_hog
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=default\$"
}

@test "global OOM, NEXT for every task: no panic, the kernel heuristic kills, the failure is traced" {
	load_policy --mode next --name all_next
	global_hog
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=all_next\$"
	unload_policy
	(($(stat_of failures) >= 1))
	(($(stat_of failures) <= $(stat_of invocations)))
	# Every task of the system was offered, but never init or a kthread.
	(($(stat_of evaluated) >= 3))
	[ "$(stat_of protected)" = 0 ]
}

@test "global OOM, ABORT: no panic, the kernel heuristic kills, the failure is traced" {
	load_policy --mode abort --name all_abort
	global_hog
	unload_policy
	# Each failed scan aborted at its first task; the fallback scan does not
	# ask the policy.
	(($(stat_of failures) >= 1))
	[ "$(stat_of failures)" = "$(stat_of evaluated)" ]
}

@test "global OOM, SELECT of a -1000 task: it survives, the heuristic picks the hog" {
	start_hog "$CGROOT" 8 --hold --adj -1000 --ready "$BATS_TEST_TMPDIR/p.ready"
	protected=$HOG_PID
	wait_for 60 test -e "$BATS_TEST_TMPDIR/p.ready"
	load_policy --mode select-pid --pid "$protected"
	global_hog
	is_alive "$protected"
	kill "$protected"
}
