#!/usr/bin/env bats
# protect in real memcg OOMs (tests/vm/run --mem 1G): the processes of a
# protected cgroup are spared while any other can die, die when nothing
# else can, and a child cgroup is protected only when it is listed too.

load helpers
load oomctl-helpers

setup() {
	cg_setup
	cg_write "$CG" memory.max 96M
	mkdir -p "$CG/daemon/child" "$CG/work" "$CG/t"
	kmsg_mark
}

teardown() {
	oomctl_teardown
}


# kills — the kill events since the last read: "pid reason" lines.
kills() {
	"$OOMCTL" -j events --timeout 0 | gojq -r 'select(.kind == "kill") | "\(.victim.pid) \(.reason)"'
}

@test "protect: the protected daemon is spared though it is the largest; the largest other process dies; explain and events agree" {
	"$OOMCTL" attach protect --cgroup "$CG/daemon"
	[ "$(status_field '"\(.policy) \([.protected[].cgroup] | join(" "))"')" = "protect /oomtest/daemon" ]
	hog_ready "$CG/daemon" 24 daemon
	daemon=$HOG_PID
	hog_ready "$CG/work" 8 big
	big=$HOG_PID
	hog_ready "$CG/work" 4 small
	small=$HOG_PID
	"$OOMCTL" -j explain --cgroup "$CG" >"$BATS_TEST_TMPDIR/explain.json"
	x() { gojq -r "$1" "$BATS_TEST_TMPDIR/explain.json"; }
	[ "$(x '"\(.victim.pid) \(.victim.reason)"')" = "$big largest unprotected process" ]
	[ "$(x '[.ranked[].pid] | join(" ")')" = "$big $small" ]
	[ "$(gojq -r --arg d "$daemon" '.skipped[] | select(.pid == ($d | tonumber)) | .reason' \
		"$BATS_TEST_TMPDIR/explain.json")" = "skipped: passed over by the policy" ]

	overflow "$CG/t"
	reap "$big"
	[ "$REAPED" = 137 ]
	reap "$CHARGER"
	[ "$REAPED" = 0 ]
	is_alive "$daemon"
	is_alive "$small"
	[ "$(kills)" = "$big largest unprotected process" ]
}

@test "protect: when only protected processes are left, the kernel's heuristic kills one of them rather than nothing" {
	"$OOMCTL" attach protect --cgroup "$CG/daemon"
	hog_ready "$CG/daemon" 12 daemon
	daemon=$HOG_PID
	# Everything in the OOM is protected: the charger too.
	overflow "$CG/daemon"
	reap "$daemon"
	[ "$REAPED" = 137 ]
	reap "$CHARGER"
	[ "$REAPED" = 0 ]
	events=$("$OOMCTL" -j events --timeout 0)
	echo "$events"
	# The policy's scan found no victim; the kernel's own scan then chose.
	[ "$(gojq -r 'select(.kind == "no_victim") | .candidates' <<<"$events" | head -1)" = 0 ]
	[ "$(gojq -r 'select(.kind == "kill") | "\(.victim.pid) \(.reason)"' <<<"$events")" = \
		"$daemon fallback: kernel heuristic" ]
}

@test "protect: a child cgroup of a protected one is not protected unless it is listed too" {
	"$OOMCTL" attach protect --cgroup "$CG/daemon"
	hog_ready "$CG/daemon/child" 16 child
	child=$HOG_PID
	hog_ready "$CG/work" 6 work
	work=$HOG_PID
	[ "$(oomctl_json '"\(.member) \(.source)"' entry get "$CG/daemon/child")" = "false none" ]
	[ "$(oomctl_json '"\(.member) \(.source)"' entry get "$CG/daemon")" = "true own" ]
	[ "$(oomctl_json .victim.pid explain --cgroup "$CG")" = "$child" ]
	# Asked for: listed too.
	"$OOMCTL" entry add "$CG/daemon/child"
	[ "$(oomctl_json .victim.pid explain --cgroup "$CG")" = "$work" ]
	overflow "$CG/t"
	reap "$work"
	[ "$REAPED" = 137 ]
	reap "$CHARGER"
	is_alive "$child"
	[ "$(kills)" = "$work largest unprotected process" ]
}
