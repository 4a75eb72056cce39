#!/usr/bin/env bats
# oomctl's abort-all policy in real memcg OOMs (tests/vm/run --mem 1G):
# "pause, don't kill". The global case is in global-oomctl.bats.

load helpers
load oomctl-helpers

setup() {
	cg_setup
	mkdir -p "$CG/a/sub" "$CG/b"
	cg_write "$CG" cgroup.subtree_control "+memory"
	cg_write "$CG/a" cgroup.subtree_control "+memory"
	kmsg_mark
}

teardown() {
	oomctl_teardown
}

failures() { status_field .counters.failures; }
failures_at_least() { (($(failures) >= $1)); }

@test "abort-all --max-pause infinity: a memcg OOM kills nothing until memory.max is raised; status warns" {
	"$OOMCTL" attach abort-all --max-pause infinity
	[ "$(status_field .max_pause_s)" = null ]
	cg_write "$CG/b" memory.max 16M
	t_start=$SECONDS
	start_hog "$CG/b" 24 --ready "$BATS_TEST_TMPDIR/hog.ready"
	hog=$HOG_PID

	# Paused: the hog sleeps in its fault and asks again every second;
	# every ask is another OOM, aborted and traced.
	[ "$OOMCTL_FAIL_WARN" -gt 1 ]
	wait_for 120 failures_at_least "$OOMCTL_FAIL_WARN"
	[ "$(cg_read_key "$CG/b" memory.events oom_kill)" = 0 ]
	is_alive "$hog"
	[ ! -e "$BATS_TEST_TMPDIR/hog.ready" ]
	run "$OOMCTL" status
	[ "$status" -eq 0 ]
	[[ $output == *"aborts:       every memcg OOM"* ]]
	[[ $output == *"warning:      selection failed "*" times within 60 s"* ]]
	[ "$(status_field '.warnings | length')" = 1 ]
	[ "$(status_field .counters.kills)" = 0 ]
	[ "$(status_field .counters.selections)" = 0 ]

	# Past the default max-pause (30 s): still paused, no kill.
	while ((SECONDS - t_start < 32)); do
		is_alive "$hog"
		sleep 1
	done
	[ "$(cg_read_key "$CG/b" memory.events oom_kill)" = 0 ]

	# What the pause costs: the hog's CPU time over 10 more failed OOMs
	# (a figure for the docs; safety.bats asserts the sleep).
	t0=$(date +%s%N) c0=$(cpu_ticks "$hog") f0=$(failures)
	wait_for 120 failures_at_least "$((f0 + 10))"
	t1=$(date +%s%N) c1=$(cpu_ticks "$hog") f1=$(failures)
	awk -v c="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" -v ns="$((t1 - t0))" -v f="$((f1 - f0))" \
		'BEGIN { printf "# paused hog: %.0f%% of a CPU, %.0f aborted OOMs/s\n", 100 * c / hz / (ns / 1e9), f / (ns / 1e9) }' >&3

	cg_write "$CG/b" memory.max 64M
	reap "$hog"
	[ "$REAPED" = 0 ]
	[ -e "$BATS_TEST_TMPDIR/hog.ready" ]
	[ "$(cg_read_key "$CG/b" memory.events oom_kill)" = 0 ]
	# No victim, so no OOM report either: status and the tracepoint are
	# what shows an aborted OOM.
	[ -z "$(kmsg_since_mark | grep -e "Killed process" -e "invoked oom-killer")" ]
}

@test "abort-all --cgroup: OOMs inside the scope pause, the others kill as usual" {
	"$OOMCTL" attach abort-all --cgroup "$CG/a"
	[ "$(status_field .scoped)" = true ]
	[ "$(status_field '.scope[0].cgroup')" = /oomtest/a ]

	# A descendant of the scope: paused.
	cg_write "$CG/a/sub" memory.max 16M
	start_hog "$CG/a/sub" 24
	paused=$HOG_PID
	wait_for 120 cg_key_at_least "$CG/a/sub" memory.events oom 3
	is_alive "$paused"
	[ "$(cg_read_key "$CG/a/sub" memory.events oom_kill)" = 0 ]

	# Outside the scope: the kernel heuristic kills.
	cg_write "$CG/b" memory.max 16M
	start_hog "$CG/b" 24
	reap "$HOG_PID"
	[ "$REAPED" = 137 ]
	[ "$(cg_read_key "$CG/b" memory.events oom_kill)" = 1 ]
	[ "$(status_field .last_victim.cgroup)" = /oomtest/b ]

	is_alive "$paused"
	kill "$paused"
	reap "$paused"
}

@test "abort-all: --replace keeps the scope; removing the scope's cgroup ends the pausing" {
	mkdir "$CG/c"
	"$OOMCTL" attach abort-all --cgroup "$CG/c" --cgroup "$CG/b"
	"$OOMCTL" attach abort-all --replace --name paused
	[ "$(status_field .name)" = paused ]
	[ "$(status_field .scoped)" = true ]
	[ "$(status_field '.scope | length')" = 2 ]
	rmdir "$CG/c"
	wait_for 30 status_is '.scope | length' 1
	[ "$(status_field '.scope[0].cgroup')" = /oomtest/b ]

	# What is left of the scope still pauses.
	cg_write "$CG/b" memory.max 16M
	start_hog "$CG/b" 24
	paused=$HOG_PID
	wait_for 120 cg_key_at_least "$CG/b" memory.events oom 2
	is_alive "$paused"
	[ "$(cg_read_key "$CG/b" memory.events oom_kill)" = 0 ]
	kill "$paused"
	reap "$paused"

	# The rest of it removed too: a memcg OOM under the same path kills,
	# though the scope is empty (it does not widen to every memcg OOM):
	# at once, not after a pause that --max-pause ends in the same kill.
	pauses=$(status_field .counters.pauses)
	rmdir "$CG/b"
	wait_for 30 status_is '.scope | length' 0
	[ "$(status_field .scoped)" = true ]
	mkdir "$CG/c"
	cg_write "$CG/c" memory.max 16M
	start_hog "$CG/c" 24
	reap "$HOG_PID"
	[ "$REAPED" = 137 ]
	[ "$(cg_read_key "$CG/c" memory.events oom_kill)" = 1 ]
	[ "$(status_field .counters.kills)" = 1 ]
	[ "$(status_field .counters.pauses)" = "$pauses" ]
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=paused\$"
}

@test "abort-all: bad options are refused and change nothing" {
	run "$OOMCTL" attach abort-all --cgroup "$CG/a" --cgroup /tmp
	[ "$status" -eq 1 ]
	[[ $output == *"cgroup '/tmp': not on a cgroup2 filesystem"* ]]
	run "$OOMCTL" attach abort-all --slice "$CG/a"
	[ "$status" -eq 2 ]
	[[ $output == *"--slice applies to rss-slice only"* ]]
	run "$OOMCTL" attach abort-all --cgroup
	[ "$status" -eq 2 ]
	[ ! -e "$PINS/policy" ]
	[ "$(eval_links)" = 0 ]
}
