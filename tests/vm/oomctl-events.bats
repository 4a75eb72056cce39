#!/usr/bin/env bats
# oomctl explain and oomctl events in real memcg OOMs (tests/vm/run --mem 1G):
# for each policy, explain's first process is the victim of the OOM that
# follows, and events reports that victim with the rule that chose it and
# the policy_name, though nobody was listening when it happened.

load helpers
load oomctl-helpers

setup() {
	cg_setup
	cg_write "$CG" memory.max 64M
	# Processes live in leaves: $CG has controllers for its children.
	W=$CG/w
	mkdir "$W" "$CG/t"
	kmsg_mark
}

teardown() {
	oomctl_teardown
}

# explain_victim — the pid explain names as the victim of an OOM of $CG.
explain_victim() { oomctl_json '.victim.pid' explain --cgroup "$CG"; }


# events_json — every event recorded since the last read, as JSON lines; in
# EVENTS.
events_json() { EVENTS=$("$OOMCTL" -j events --timeout 0); echo "$EVENTS"; }

# lines_at_least FILE N — has FILE N complete lines? For wait_for.
lines_at_least() { (($(wc -l <"$1") >= $2)); }

# kills — the kill events' "pid reason" lines.
kills() { gojq -r 'select(.kind == "kill") | "\(.victim.pid) \(.reason)"' <<<"$EVENTS"; }

@test "cgprio: explain's first process dies in the OOM that follows; events gives the rule and policy_name" {
	mkdir "$CG/a" "$CG/b"
	"$OOMCTL" attach cgprio --name ev_cgprio
	"$OOMCTL" set-prio "$CG/a" 10
	"$OOMCTL" set-prio "$CG/b" 50
	"$OOMCTL" set-prio "$CG/t" 1000
	hog_ready "$CG/a" 6 a
	low=$HOG_PID
	hog_ready "$CG/b" 12 b
	high=$HOG_PID

	"$OOMCTL" -j explain --cgroup "$CG" >"$BATS_TEST_TMPDIR/explain.json"
	x() { gojq -r "$1" "$BATS_TEST_TMPDIR/explain.json"; }
	[ "$(x .outcome)" = kill ]
	[ "$(x .victim.pid)" = "$low" ]
	[ "$(x '[.ranked[].pid] | join(" ")')" = "$low $high" ]
	[ "$(x '.ranked[0].rank | "\(.class) \(.rule) \(.prio) \(.prio_from)"')" = "candidate prio 10 /oomtest/a" ]
	[ "$(x .ranked[1].rank.prio)" = 50 ]
	[ "$(x .policy_name)" = ev_cgprio ]

	overflow
	reap "$low"
	[ "$REAPED" = 137 ]
	reap "$CHARGER"
	[ "$REAPED" = 0 ]
	is_alive "$high"
	events_json
	[ "$(kills)" = "$low cgroup prio 10 < 50 (set on /oomtest/a)" ]
	[ "$(gojq -r 'select(.kind == "kill") | [.policy_name, .scope, .memcg, .victim.comm, .victim.cgroup, .rank.prio, .candidates] | join(" ")' <<<"$EVENTS")" = \
		"ev_cgprio memcg /oomtest hog /oomtest/a 10 3" ]    # a, b and the charger
	(($(gojq -r 'select(.kind == "kill") | .victim.rss_kb' <<<"$EVENTS") >= 6 * 1024))
	# Shown once: the next read starts after it.
	events_json
	[ -z "$EVENTS" ]
}

@test "pid: a listed process is explained and killed as such; unlisted, the kernel heuristic decides" {
	"$OOMCTL" attach pid
	hog_ready "$W" 6 small
	small=$HOG_PID
	hog_ready "$W" 12 big
	big=$HOG_PID
	"$OOMCTL" add-pid "$small"
	[ "$(explain_victim)" = "$small" ]
	[ "$(oomctl_json '.victim.reason' explain --cgroup "$CG")" = "listed pid" ]
	overflow
	reap "$small"
	[ "$REAPED" = 137 ]
	reap "$CHARGER"
	events_json
	[ "$(kills)" = "$small listed pid" ]

	# No listed process left: the heuristic's choice, explained alike.
	cg_write "$CG" memory.max 64M
	hog_ready "$W" 4 other
	other=$HOG_PID
	[ "$(explain_victim)" = "$big" ]
	[ "$(oomctl_json '.ranked[0].rank.class' explain --cgroup "$CG")" = heuristic ]
	overflow
	reap "$big"
	reap "$CHARGER"
	is_alive "$other"
	events_json
	[ "$(kills)" = "$big fallback: kernel heuristic" ]
}

@test "rss-slice: the largest process inside the slice, not the larger one outside" {
	mkdir "$CG/slice"
	"$OOMCTL" attach rss-slice --slice "$CG/slice"
	hog_ready "$CG/slice" 4 s1
	s1=$HOG_PID
	hog_ready "$CG/slice" 8 s2
	s2=$HOG_PID
	hog_ready "$W" 12 out
	out=$HOG_PID
	[ "$(explain_victim)" = "$s2" ]
	[ "$(oomctl_json '[.ranked[] | select(.rank.class == "candidate") | .pid] | join(" ")' explain --cgroup "$CG")" = "$s2 $s1" ]
	overflow
	reap "$s2"
	reap "$CHARGER"
	is_alive "$s1"
	is_alive "$out"
	events_json
	[ "$(kills)" = "$s2 largest RSS in slice /oomtest/slice" ]
}

@test "abort-all: explain says the OOM is aborted; events reports a scan with no victim" {
	"$OOMCTL" attach abort-all --cgroup "$CG"
	hog_ready "$W" 12 h
	h=$HOG_PID
	"$OOMCTL" -j explain --cgroup "$CG" >"$BATS_TEST_TMPDIR/explain.json"
	[ "$(gojq -r .outcome "$BATS_TEST_TMPDIR/explain.json")" = abort ]
	[ "$(gojq -r .victim "$BATS_TEST_TMPDIR/explain.json")" = null ]
	[ "$(gojq -r '.ranked[0].rank.class' "$BATS_TEST_TMPDIR/explain.json")" = abort ]
	overflow
	# The charger pauses: its OOMs are aborted, again and again.
	wait_for 60 cg_key_at_least "$CG" memory.events oom 2
	events_json
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = 0 ]
	is_alive "$h"
	is_alive "$CHARGER"
	[ -z "$(kills)" ]
	(($(gojq -s '[.[] | select(.kind == "no_victim" and .reason == "aborted by the policy")] | length' <<<"$EVENTS") >= 1))
	# Outside the scope, explain shows the kernel's choice for a global OOM.
	[ "$(oomctl_json '.ranked[0].rank.class' explain)" = heuristic ]
	cg_write "$CG" memory.max 64M
	reap "$CHARGER"
	[ "$REAPED" = 0 ]
}

@test "explain marks what the kernel passes over: init, kernel threads, oom_score_adj -1000" {
	"$OOMCTL" attach cgprio
	start_hog "$W" 1 --hold --adj -1000
	shielded=$HOG_PID
	wait_for 30 file_is "/proc/$shielded/oom_score_adj" -1000
	"$OOMCTL" -j explain >"$BATS_TEST_TMPDIR/explain.json"
	why() { gojq -r --argjson p "$1" '.skipped[] | select(.pid == $p) | .rank.skip' "$BATS_TEST_TMPDIR/explain.json"; }
	[ "$(why 1)" = unkillable ]
	[ "$(why 2)" = unkillable ]    # kthreadd
	[ "$(why "$shielded")" = oom_score_adj_min ]
	# No process is both ranked and passed over, and every process is one.
	[ "$(gojq '[.ranked[].pid, .skipped[].pid] | length == (unique | length)' "$BATS_TEST_TMPDIR/explain.json")" = true ]
	run "$OOMCTL" explain --top 0
	[ "$status" = 0 ]
	[[ ${lines[0]} == "explain: a global OOM (totalpages "*"), policy cgprio (policy_name cgprio)" ]]
}

@test "events: a burst of 100 OOMs, read afterwards, loses none; the numbers and counters agree" {
	local n=$((OOMCTL_STRESS ? 500 : 100)) i
	cg_write "$CG" memory.max 8M
	"$OOMCTL" attach cgprio
	for ((i = 0; i < n; i++)); do
		start_hog "$W" 16
		reap "$HOG_PID" 60
		[ "$REAPED" = 137 ]
	done
	events_json
	[ "$(gojq -s '[.[] | select(.kind == "kill")] | length' <<<"$EVENTS")" = "$n" ]
	[ "$(gojq -s '[.[] | select(.dropped)] | length' <<<"$EVENTS")" = 0 ]
	# Numbered without a gap, and as many as the policy counted.
	[ "$(gojq -s '[.[].seq] | . == [range(.[0]; .[0] + length)]' <<<"$EVENTS")" = true ]
	[ "$(status_field .counters.events)" = "$(gojq -s 'length' <<<"$EVENTS")" ]
	[ "$(status_field .counters.events_dropped)" = 0 ]
	[ "$(status_field .counters.kills)" = "$n" ]
	echo "# events: $n OOMs in a row, $n kill events read afterwards, none dropped" >&3
}

@test "events: bad options and no policy are one-line errors; --count waits for new events" {
	run "$OOMCTL" events
	[ "$status" = 1 ]
	[[ $output == *"events: no oomctl policy is attached"* ]]
	run "$OOMCTL" events --count 0
	[ "$status" = 2 ]
	[[ $output == *"--count '0'"* ]]
	run "$OOMCTL" events --timeout -1
	[ "$status" = 2 ]
	run "$OOMCTL" explain --top x
	[ "$status" = 2 ]
	[[ $output == *"--top 'x'"* ]]
	run "$OOMCTL" explain --cgroup /nonexistent
	[ "$status" = 1 ]
	[[ $output == *"'/nonexistent': no such cgroup"* ]]

	# A listener sees an OOM as it happens. One OOM first, with nobody
	# listening: the listener prints it from the backlog, and only then is
	# the second OOM caused, which it can only have seen live.
	cg_write "$CG" memory.max 8M
	"$OOMCTL" attach cgprio --name live
	start_hog "$W" 16
	before=$HOG_PID
	reap "$before"
	[ "$REAPED" = 137 ]
	live=$BATS_TEST_TMPDIR/live.json
	"$OOMCTL" -j events --count 2 --timeout 120 >"$live" 3>&- &
	listener=$!
	wait_for 60 lines_at_least "$live" 1
	[ "$(gojq -r .victim.pid "$live")" = "$before" ]
	is_alive "$listener"
	start_hog "$W" 16
	hog=$HOG_PID
	reap "$hog"
	[ "$REAPED" = 137 ]
	reap "$listener" 130
	[ "$REAPED" = 0 ]
	[ "$(gojq -r '"\(.victim.pid) \(.policy_name)"' "$live")" = "$(printf '%s live\n' "$before" "$hog")" ]
	[ "$(gojq -s '.[1].seq - .[0].seq' "$live")" = 1 ]
}
