#!/usr/bin/env bats
# oomctl's pid policy in real memcg OOMs (tests/vm/run --mem 1G).

load helpers
load oomctl-helpers

setup() {
	cg_setup
	two_children
	kmsg_mark
}

teardown() {
	oomctl_teardown
}

@test "pid: the listed task dies, not the bigger one" {
	"$OOMCTL" attach pid
	hog_ready "$CG/a" 4 a
	small=$HOG_PID
	"$OOMCTL" add-pid "$small"
	[ "$(oomctl_json '.[0].pid' get-pids)" = "$small" ]
	hog_ready "$CG/b" 14 b
	big=$HOG_PID

	reap "$small"
	[ "$REAPED" = 137 ]
	is_alive "$big"
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=pid\$"
	[ "$(status_field .last_victim.pid)" = "$small" ]
	[ "$(status_field .last_policy_name)" = pid ]
	[ "$(status_field .counters.selections)" = 1 ]
	# The victim's entry goes with it.
	wait_for 30 status_is '.pids | length' 0
}

@test "pid: when the listed process is gone the kernel heuristic decides" {
	"$OOMCTL" attach pid --name pid_fallback
	sleep 1000 &
	gone=$!
	"$OOMCTL" add-pid "$gone"
	kill "$gone"
	wait "$gone" || true
	wait_for 30 status_is '.pids | length' 0

	hog_ready "$CG/a" 4 a
	small=$HOG_PID
	start_hog "$CG/b" 64
	big=$HOG_PID
	reap "$big"
	[ "$REAPED" = 137 ]
	is_alive "$small"
	[ "$(status_field .counters.selections)" = 0 ]
	[ "$(status_field .counters.kills)" = 1 ]
	[ "$(status_field .last_policy_name)" = pid_fallback ]
}

@test "pid: bad pids are refused and change nothing" {
	"$OOMCTL" attach pid
	sleep 1000 &
	live=$!
	run "$OOMCTL" add-pid "$live" 12x
	[ "$status" -eq 2 ]
	[[ $output == *"'12x'"* ]]
	run "$OOMCTL" add-pid "$live" 4000000
	[ "$status" -eq 1 ]
	[[ $output == *"no process 4000000"* ]]
	[ "$(oomctl_json 'length' get-pids)" = 0 ]
	run "$OOMCTL" del-pid "$live"
	[ "$status" -eq 1 ]
	[[ $output == *"not a target"* ]]
	run "$OOMCTL" set-prio "$CG/a" 1
	[ "$status" -eq 1 ]
	[[ $output == *"attached policy is pid, not cgprio"* ]]
	"$OOMCTL" add-pid "$live"
	"$OOMCTL" del-pid "$live"
	[ "$(oomctl_json 'length' get-pids)" = 0 ]
	kill "$live"
}
