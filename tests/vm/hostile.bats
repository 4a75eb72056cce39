#!/usr/bin/env bats
# Hostile policies in memcg OOMs (tests/vm/run --mem 1G): programs that are
# not oomctl's, doing the worst the hook allows (tests/bpf/oom_test.bpf.c's
# modes), with a handful of tasks and with 2,000. For each, the bounds:
#
#   - the machine lives (the harness fails the run on a splat, an RCU stall,
#     a soft lockup or a hung task);
#   - the OOM ends within 60 s: a task dies, or, for ABORT, the cgroup is
#     paused with its faulting task asleep;
#   - no task outside the OOMing cgroup blocks: a canary in the root cgroup
#     appends to, creates and removes files in the directory the hog's
#     cgroup writes to, and is never seen in D state;
#   - at most 100 kernel log lines per OOM (memory.events oom), plus one per
#     task (a kill's report lists the cgroup's tasks: oom_dump_tasks).
# hostile-global.bats does the same for global OOMs in the 256M VM.

load helpers
load oomctl-helpers

setup() {
	cg_setup
	kmsg_mark
	SCRATCH=$(mktemp -d /tmp/hostile.XXXXXX)
}

teardown() {
	[[ -n ${CANARY:-} ]] && kill "$CANARY" 2>/dev/null && wait "$CANARY"
	common_teardown
	rm -rf "$SCRATCH"
}

# canary — a process outside $CG that keeps taking the locks a charge in $CG
# may hold: the directory's (create, remove) and a file's (append).
canary() {
	(while :; do
		echo x >>"$SCRATCH/shared"
		touch "$SCRATCH/c.$BASHPID"
		rm -f "$SCRATCH/c.$BASHPID"
		nap 0.05
	done) 3>&- &
	CANARY=$!
}

# hostile MODE [TASKS] — the policy MODE; a hog in $CG/a (32M left) writing
# to tmpfs and growing; returns when the OOM ended or the bound passed.
# Leaves the grower's pid in GROWER and whether it was killed in KILLED.
hostile() {
	local mode=$1 tasks=${2:-0} t0 i
	mkdir "$CG/a"
	# The crowd's kernel stacks and task structs are charged to $CG too
	# (2,000 tasks: ~40M): the limit is 32M above what it holds.
	((tasks)) && crowd_ready "$tasks"
	cg_write "$CG" memory.max $(($(cat "$CG/memory.current") + 32 * 1024 * 1024))
	hog_ready "$CG/a" 4 small
	load_policy --mode "$mode" --name "h_$mode"
	canary
	# Kernel charges with a lock held (tmpfs), then user faults.
	(echo "$BASHPID" >"$CG/a/cgroup.procs" && echo 0 >/proc/self/oom_score_adj || exit
		dd if=/dev/zero of="$SCRATCH/shared" bs=1M count=16 oflag=append conv=notrunc
		exec "$HOG" 64) >>"$BATS_TEST_TMPDIR/hog.log" 2>&1 3>&- &
	GROWER=$!
	t0=$SECONDS
	KILLED=0
	until (($(cg_read_key "$CG" memory.events oom_kill) >= 1)); do
		if [[ $mode == abort ]] && hog_paused; then
			break
		fi
		if ((SECONDS - t0 > 60)); then
			echo "no kill (or pause) within 60 s" >&2
			return 1
		fi
		[[ $(state "$CANARY") != D ]] || canary_stuck || return 1
		nap 0.1
	done
	(($(cg_read_key "$CG" memory.events oom_kill) >= 1)) && KILLED=1
	echo "# $mode${tasks:+, $tasks tasks}: OOM ended after $((SECONDS - t0)) s," \
		"$(cg_read_key "$CG" memory.events oom) OOMs, $(kmsg_since_mark | wc -l) log lines" >&3
	# The canary goes on: five more rounds without D.
	for ((i = 0; i < 50; i++)); do
		[[ $(state "$CANARY") != D ]] || canary_stuck || return 1
		nap 0.1
	done
	is_alive "$CANARY"
	# A kill's report lists every task of the cgroup (oom_dump_tasks).
	log_lines_per_oom_at_most $((100 + tasks))
}

# A D state for an instant is a page or a lock taken in passing; stuck is
# D for 2 s.
canary_stuck() {
	for ((j = 0; j < 20; j++)); do
		[[ $(state "$CANARY") == D ]] || return 0
		nap 0.1
	done
	echo "the canary (pid $CANARY, outside the cgroup) is stuck in D" >&2
	return 1
}

# The grower (or its dd) sleeps in the paused cgroup's wait.
hog_paused() {
	local p
	for p in $(cat "$CG/a/cgroup.procs"); do
		[[ $p == "$HOG_PID" ]] && continue
		is_paused "$p" && (($(cg_read_key "$CG" memory.events oom) >= 2)) && return 0
	done
	return 1
}

log_lines_per_oom_at_most() {
	local lines ooms
	lines=$(kmsg_since_mark | wc -l)
	ooms=$(cg_read_key "$CG" memory.events oom)
	((lines <= $1 * (ooms > 0 ? ooms : 1)))
}

@test "hostile: SELECT every task — a task of the cgroup dies" {
	hostile select-all
	((KILLED))
	unload_policy
	(($(stat_of selected) >= 2))
}

@test "hostile: NEXT every task — the kernel heuristic kills" {
	hostile next
	((KILLED))
	unload_policy
	(($(stat_of failures) >= 1))
}

@test "hostile: ABORT always — the cgroup pauses, nothing dies, nothing outside blocks" {
	hostile abort
	((!KILLED))
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = 0 ]
	# A memory.max write below usage returns, and raising it ends the pause.
	run timeout 30 sh -c "echo 16M >'$CG/memory.max'"
	[ "$status" = 0 ]
	run timeout 30 sh -c "echo 512M >'$CG/memory.max'"
	[ "$status" = 0 ]
	reap "$GROWER" 60
	[ "$REAPED" = 0 ]
}

@test "hostile: ABORT, SELECT, NEXT, bogus in turn — a task dies" {
	hostile alternate
	((KILLED))
}

@test "hostile: out-of-range verdicts (42, -1, INT_MAX) — the kernel heuristic kills" {
	hostile negative
	((KILLED))
	unload_policy
	[ "$(stat_of failures)" = 0 ]
}

@test "hostile: the kfuncs with odd sizes and odd tasks — a task dies, the name is cut to 15 bytes" {
	hostile kfunc-odd
	((KILLED))
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=0123456789abcde\$"
}

@test "hostile: a long loop per task — past the budget the kernel heuristic kills" {
	hostile slow
	((KILLED))
	unload_policy
	(($(stat_of overruns) >= 1))
}

@test "hostile: SELECT every task among 2,000 — a task of the cgroup dies" {
	hostile select-all 2000
	((KILLED))
}

@test "hostile: NEXT every task among 2,000 — the kernel heuristic kills" {
	hostile next 2000
	((KILLED))
}

@test "hostile: ABORT always among 2,000 — the cgroup pauses, nothing outside blocks" {
	hostile abort 2000
	((!KILLED))
	run timeout 30 sh -c "echo 512M >'$CG/memory.max'"
	[ "$status" = 0 ]
}

@test "hostile: a long loop per task among 2,000 — the OOM ends within the bound" {
	hostile slow 2000
	((KILLED))
	unload_policy
	(($(stat_of overruns) >= 1))
}
