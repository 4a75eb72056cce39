#!/usr/bin/env bats
# Each oomctl policy in a real global OOM (tests/vm/run --mem 256M). The
# harness runs at oom_score_adj -1000; the hogs at 0 are the candidates.

load helpers
load oomctl-helpers

setup() {
	cg_setup
	mkdir "$CG/slice"
	kmsg_mark
}

teardown() {
	oomctl_teardown
}

@test "global OOM under abort-all: never paused, the kernel heuristic kills, no panic" {
	"$OOMCTL" attach abort-all
	start_hog "$CGROOT" 1024
	reap "$HOG_PID" 300
	[ "$REAPED" = 137 ]
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=abort-all\$"
	kmsg_since_mark | grep -q "Out of memory: Killed process $HOG_PID (hog)"
	[ "$(status_field .last_victim.pid)" = "$HOG_PID" ]
	# The policy returned NO_BPF_POLICY: nothing failed.
	[ "$(status_field .counters.failures)" = 0 ]
}

# small_dies_first SMALL_CG BIG_CG [CMD...] — an 8M hog in SMALL_CG (its pid
# in SMALL, passed to CMD if given), then a hog in BIG_CG that grows until
# the VM runs out of memory: the policy must kill the small one first; once
# it is gone, the kernel's own choice is the big one, killed in the next OOM.
small_dies_first() {
	local small_cg=$1 big_cg=$2
	shift 2
	hog_ready "$small_cg" 8 small
	SMALL=$HOG_PID
	(($# == 0)) || "$@" "$SMALL"
	start_hog "$big_cg" 1024
	BIG=$HOG_PID
	reap "$SMALL" 300
	[ "$REAPED" = 137 ]
	reap "$BIG" 300
	[ "$REAPED" = 137 ]
	kmsg_since_mark | grep -q "Out of memory: Killed process $SMALL (hog)"
	kmsg_since_mark | grep -q "Out of memory: Killed process $BIG (hog)"
	[ "$(status_field .counters.kills)" = 2 ]
	[ "$(status_field .last_victim.pid)" = "$BIG" ]
}

@test "global OOM under rss-slice: the slice's task dies first, then the kernel decides" {
	"$OOMCTL" attach rss-slice --slice "$CG/slice"
	small_dies_first "$CG/slice" "$CGROOT"
}

@test "global OOM under cgprio: the lowest priority dies first, though smaller" {
	mkdir "$CG/low" "$CG/high"
	"$OOMCTL" attach cgprio --default-prio 100
	"$OOMCTL" set-prio "$CG/low" 10
	"$OOMCTL" set-prio "$CG/high" 50
	small_dies_first "$CG/low" "$CG/high"
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=cgprio\$"
}

@test "global OOM under pid: the listed process dies first, then the kernel decides" {
	"$OOMCTL" attach pid
	small_dies_first "$CG/slice" "$CGROOT" "$OOMCTL" add-pid
	[ "$(status_field .counters.selections)" = 1 ]
	[ "$(oomctl_json length get-pids)" = 0 ]
}
