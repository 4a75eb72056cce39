#!/usr/bin/env bats
# Hostile policies in global OOMs (tests/vm/run --mem 256M): the worst the
# hook allows (tests/bpf/oom_test.bpf.c's modes; NEXT and ABORT are in
# global.bats), with a handful of tasks and with 2,000. Bounds: the machine
# lives (no panic, no RCU stall, soft lockup or hung task: the harness
# checks the log), the hog dies within 300 s, the policy is never offered
# init or a kernel thread (its "protected" counter stays 0).

load helpers
load oomctl-helpers

setup() {
	cg_setup
	kmsg_mark
}

teardown() {
	common_teardown
}

# global_hostile MODE [TASKS] — a hog grows until the VM is out of memory
# under policy MODE: it dies, no panic, and the OOM report names the
# policy g_MODE (or $NAME, for a mode that sets its own).
global_hostile() {
	local t0=$SECONDS name=${NAME:-g_$1}
	((${2:-0})) && crowd_ready "$2" --adj -1000
	load_policy --mode "$1" --name "g_$1"
	start_hog "$CGROOT" 1024
	reap "$HOG_PID" 300
	[ "$REAPED" = 137 ]
	echo "# global $1${2:+ among $2}: hog killed after $((SECONDS - t0)) s" >&3
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=$name\$"
	unload_policy
	[ "$(stat_of protected)" = 0 ]
}

@test "global hostile: SELECT every task — a task dies, no panic" {
	global_hostile select-all
}

@test "global hostile: ABORT, SELECT, NEXT, bogus in turn — the hog dies" {
	global_hostile alternate
}

@test "global hostile: out-of-range verdicts — the kernel heuristic kills the hog" {
	global_hostile negative
	[ "$(stat_of failures)" = 0 ]
}

@test "global hostile: the kfuncs with odd sizes and odd tasks — the hog dies, the name is cut to 15 bytes" {
	NAME=0123456789abcde global_hostile kfunc-odd
}

@test "global hostile: a long loop per task among 2,000 — past the budget the heuristic kills the hog, no RCU stall" {
	global_hostile slow 2000
	(($(stat_of overruns) >= 1))
}

# The kernel panicked here ("System is deadlocked on memory", patch 0009's
# message): an allocation that failed before the hog's memory came back
# invoked the OOM killer, the slow policy's scan ran out its budget, and by
# then the hog was gone; every other task is at -1000. One hog a test hit it
# in about one run of five; 20 in a row, by round 3.
@test "global hostile: a slow policy among 2,000, 20 hogs in a row — each killed, no panic as a victim's memory comes back" {
	crowd_ready 2000 --adj -1000
	load_policy --mode slow --name g_slow
	for ((round = 1; round <= 20; round++)); do
		start_hog "$CGROOT" 1024
		reap "$HOG_PID" 300 || { echo "round $round: the hog was not killed within 300 s" >&2; return 1; }
		[ "$REAPED" = 137 ] || { echo "round $round: the hog exited $REAPED, not killed" >&2; return 1; }
	done
	unload_policy
	[ "$(stat_of protected)" = 0 ]
}
