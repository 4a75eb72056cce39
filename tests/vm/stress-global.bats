#!/usr/bin/env bats
# A global OOM scanning 5,000 processes (tests/vm/run --mem 256M; make
# check-stress): the scan under rcu_read_lock() visits every process and
# calls the policy for each; it must finish, without an RCU stall (the
# harness fails the run on one), and kill the policy's victim.

load helpers
load oomctl-helpers

SLEEPERS=$B/tests/sleepers
NPROC=5000

setup() {
	cg_setup
	mkdir "$CG/crowd" "$CG/low"
	# The kernel sizes threads-max to its memory: about 2,000 in 256M.
	THREADS_MAX=$(cat /proc/sys/kernel/threads-max)
	echo $((NPROC + 1000)) >/proc/sys/kernel/threads-max
	kmsg_mark
}

teardown() {
	oomctl_teardown
	echo "$THREADS_MAX" >/proc/sys/kernel/threads-max
}

# crowd — NPROC sleeping processes in $CG/crowd, each a process of its own
# (clone without CLONE_THREAD) sharing one small mm.
crowd() {
	(echo "$BASHPID" >"$CG/crowd/cgroup.procs" &&
		exec "$SLEEPERS" --ready "$BATS_TEST_TMPDIR/crowd.ready" "$NPROC") \
		>>"$BATS_TEST_TMPDIR/sleepers.log" 2>&1 3>&- &
	CROWD=$!
	wait_for 300 crowd_settled
	cat "$BATS_TEST_TMPDIR/sleepers.log"
	[ -e "$BATS_TEST_TMPDIR/crowd.ready" ]
	# The parent and its NPROC processes.
	[ "$(wc -l <"$CG/crowd/cgroup.procs")" = $((NPROC + 1)) ]
}

crowd_settled() { [[ -e $BATS_TEST_TMPDIR/crowd.ready ]] || is_gone "$CROWD"; }

# global_oom_among_crowd POLICY_NAME — a hog in $CG/low grows until the VM
# runs out of memory: it must die, and every process of the crowd live.
global_oom_among_crowd() {
	local t0=$SECONDS
	start_hog "$CG/low" 1024
	reap "$HOG_PID" 600
	[ "$REAPED" = 137 ]
	echo "# global OOM among $NPROC processes under $1: hog killed $((SECONDS - t0)) s after it started" >&3
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=$1\$"
	kmsg_since_mark | grep -q "Out of memory: Killed process $HOG_PID (hog)"
	[ "$(wc -l <"$CG/crowd/cgroup.procs")" = $((NPROC + 1)) ]
	[ "$(status_field .last_victim.pid)" = "$HOG_PID" ]
}

@test "global OOM among 5,000 processes under cgprio: the scan finishes, the low priority hog dies" {
	"$OOMCTL" attach cgprio --default-prio 100
	"$OOMCTL" set-prio "$CG/low" 10
	crowd
	global_oom_among_crowd cgprio
}

@test "global OOM among 5,000 processes under rss-slice: the scan finishes, the slice's hog dies" {
	"$OOMCTL" attach rss-slice --slice "$CG/low"
	crowd
	global_oom_among_crowd rss-slice
}
