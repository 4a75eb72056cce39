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

@test "global OOM under rss-slice: the slice's task dies first, then the kernel decides" {
	"$OOMCTL" attach rss-slice --slice "$CG/slice"
	hog_ready "$CG/slice" 8 small
	small=$HOG_PID
	start_hog "$CGROOT" 1024
	big=$HOG_PID

	reap "$small" 300
	[ "$REAPED" = 137 ]
	# The slice is empty now: the next OOM falls back to the heuristic.
	reap "$big" 300
	[ "$REAPED" = 137 ]
	kmsg_since_mark | grep -q "Out of memory: Killed process $small (hog)"
	kmsg_since_mark | grep -q "Out of memory: Killed process $big (hog)"
	[ "$(status_field .counters.kills)" = 2 ]
	[ "$(status_field .last_victim.pid)" = "$big" ]
}

@test "global OOM under cgprio: the lowest priority dies first, though smaller" {
	mkdir "$CG/low" "$CG/high"
	"$OOMCTL" attach cgprio --default-prio 100
	"$OOMCTL" set-prio "$CG/low" 10
	"$OOMCTL" set-prio "$CG/high" 50
	hog_ready "$CG/low" 8 small
	small=$HOG_PID
	start_hog "$CG/high" 1024
	big=$HOG_PID

	# The small hog goes first; then the big one is alone at priority 50
	# against the -1000 harness, and dies in the next OOM.
	reap "$small" 300
	[ "$REAPED" = 137 ]
	reap "$big" 300
	[ "$REAPED" = 137 ]
	kmsg_since_mark | grep -q "Out of memory: Killed process $small (hog)"
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=cgprio\$"
	[ "$(status_field .counters.kills)" = 2 ]
	[ "$(status_field .last_victim.pid)" = "$big" ]
}

@test "global OOM under pid: the listed process dies first, then the kernel decides" {
	"$OOMCTL" attach pid
	hog_ready "$CG/slice" 8 small
	small=$HOG_PID
	"$OOMCTL" add-pid "$small"
	start_hog "$CGROOT" 1024
	big=$HOG_PID

	reap "$small" 300
	[ "$REAPED" = 137 ]
	reap "$big" 300
	[ "$REAPED" = 137 ]
	kmsg_since_mark | grep -q "Out of memory: Killed process $small (hog)"
	kmsg_since_mark | grep -q "Out of memory: Killed process $big (hog)"
	[ "$(status_field .counters.selections)" = 1 ]
	[ "$(status_field .last_victim.pid)" = "$big" ]
	[ "$(oomctl_json length get-pids)" = 0 ]
}
