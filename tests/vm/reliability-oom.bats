#!/usr/bin/env bats
# OOMs that are harder than one hog (tests/vm/run --mem 1G): a hog that
# forks new children as fast as they die, two memcgs OOMing at once, and
# memory.oom.group. stress-oom.bats runs 50 OOMs in a row per policy.

load helpers
load oomctl-helpers

FORKHOG=$B/tests/forkhog

setup() {
	cg_setup
	kmsg_mark
}

teardown() {
	oomctl_teardown
}

local_kills() { cg_read_key "$1" memory.events.local oom_kill; }

@test "a forking hog in a low-priority cgroup: every kill of a storm is in it, never the bigger hog" {
	mkdir "$CG/low" "$CG/high"
	cg_write "$CG" memory.max 16M
	"$OOMCTL" attach cgprio --default-prio 100
	"$OOMCTL" set-prio "$CG/low" 10
	"$OOMCTL" set-prio "$CG/high" 50
	hog_ready "$CG/high" 6 big
	big=$HOG_PID
	# Four children of 3M each and 6M in high: more than 16M. Each child
	# killed is forked again at once: an endless storm of OOMs.
	(echo "$BASHPID" >"$CG/low/cgroup.procs" && exec "$FORKHOG" --children 4 3) \
		>>"$BATS_TEST_TMPDIR/forkhog.log" 2>&1 3>&- &
	wait_for 300 cg_key_at_least "$CG/low" memory.events.local oom_kill 20
	echo 1 >"$CG/low/cgroup.kill"
	wait_for 30 cg_empty "$CG/low"
	kills=$(local_kills "$CG/low")
	echo "# forking hog: $kills kills in the storm, all in the low cgroup" >&3
	is_alive "$big"
	[ "$(local_kills "$CG/high")" = 0 ]
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = "$kills" ]
	# The policy saw every kill, and chose each one.
	[ "$(status_field .counters.kills)" = "$kills" ]
	[ "$(status_field .counters.failures)" = 0 ]
	[ "$(status_field .last_victim.cgroup)" = /oomtest/low ]
	[ "$(kmsg_since_mark | grep -c 'Memory cgroup out of memory: Killed process [0-9]* (forkhog)')" = "$kills" ]
}

@test "two memcgs OOMing at once: each kills its own lowest priority" {
	for m in m1 m2; do
		mkdir -p "$CG/$m/low" "$CG/$m/high"
		cg_write "$CG/$m" cgroup.subtree_control +memory
		cg_write "$CG/$m" memory.max 16M
	done
	"$OOMCTL" attach cgprio --default-prio 100
	"$OOMCTL" set-prio "$CG/m1/low" 10
	"$OOMCTL" set-prio "$CG/m2/low" 20
	"$OOMCTL" set-prio "$CG/m1/high" 50
	"$OOMCTL" set-prio "$CG/m2/high" 50
	hog_ready "$CG/m1/high" 8 big1
	big1=$HOG_PID
	hog_ready "$CG/m2/high" 8 big2
	big2=$HOG_PID
	# Both grow past their limits at the same time.
	start_hog "$CG/m1/low" 12 --hold
	low1=$HOG_PID
	start_hog "$CG/m2/low" 12 --hold
	low2=$HOG_PID
	reap "$low1" 120
	[ "$REAPED" = 137 ]
	reap "$low2" 120
	[ "$REAPED" = 137 ]
	is_alive "$big1"
	is_alive "$big2"
	[ "$(local_kills "$CG/m1/low")" = 1 ]
	[ "$(local_kills "$CG/m2/low")" = 1 ]
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = 2 ]
	[ "$(status_field .counters.kills)" = 2 ]
	kmsg_since_mark | grep -q "Memory cgroup out of memory: Killed process $low1 (hog)"
	kmsg_since_mark | grep -q "Memory cgroup out of memory: Killed process $low2 (hog)"
}

@test "memory.oom.group: the policy's victim takes its whole group, but not the group's -1000 member" {
	mkdir "$CG/grp" "$CG/other"
	cg_write "$CG" memory.max 24M
	cg_write "$CG/grp" memory.oom.group 1
	"$OOMCTL" attach cgprio --default-prio 100
	"$OOMCTL" set-prio "$CG/grp" 10
	# The biggest hog is outside the group: the kernel would kill it.
	hog_ready "$CG/other" 10 other
	other=$HOG_PID
	hog_ready "$CG/grp" 2 g1
	g1=$HOG_PID
	hog_ready "$CG/grp" 2 g2
	g2=$HOG_PID
	hog_ready "$CG/grp" 2 protected --adj -1000
	protected=$HOG_PID
	start_hog "$CG/grp" 12 --hold
	grower=$HOG_PID
	for p in "$g1" "$g2" "$grower"; do
		reap "$p" 120
		[ "$REAPED" = 137 ]
	done
	is_alive "$protected"
	is_alive "$other"
	[ "$(local_kills "$CG/other")" = 0 ]
	[ "$(cg_read_key "$CG/grp" memory.events.local oom_group_kill)" = 1 ]
	kmsg_since_mark | grep -q "Tasks in /oomtest/grp are going to be killed due to memory.oom.group set"
	# Exactly the three, by pid. The kernel kills the policy's victim a
	# second time when it walks the group: four kills in the log and in
	# oom_kill, the victim's pid twice, each other member's once.
	victim=$(status_field .last_victim.pid)
	[ "$(status_field .last_victim.cgroup)" = /oomtest/grp ]
	kmsg_since_mark | grep -o 'Memory cgroup out of memory: Killed process [0-9]*' |
		awk '{ print $NF }' | sort >"$BATS_TEST_TMPDIR/killed"
	cat "$BATS_TEST_TMPDIR/killed"
	diff "$BATS_TEST_TMPDIR/killed" <(printf '%s\n' "$g1" "$g2" "$grower" "$victim" | sort)
	[ "$(local_kills "$CG/grp")" = 4 ]
	# status counts what the kernel did, as oom_kill does: the policy's
	# one victim (a kill event) and the group's four kills (three
	# group_kill events, the victim's second kill among them).
	[ "$(status_field .counters.kills)" = 4 ]
	[ "$(status_field .counters.selections)" -ge 1 ]
	"$OOMCTL" -j events --timeout 0 >"$BATS_TEST_TMPDIR/events"
	[ "$(gojq -rs 'map(.kind | select(. == "kill" or . == "group_kill")) | sort | join(",")' \
		"$BATS_TEST_TMPDIR/events")" = group_kill,group_kill,group_kill,kill ]
}
