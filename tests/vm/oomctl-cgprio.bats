#!/usr/bin/env bats
# oomctl's cgprio policy in real memcg OOMs (tests/vm/run --mem 1G).

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

@test "cgprio: the lowest priority dies though a higher one holds more; status and the kernel log agree" {
	# Attached by one oomctl process; the OOM happens after it has exited.
	"$OOMCTL" attach cgprio --name prio_test
	"$OOMCTL" set-prio "$CG/a" 10
	"$OOMCTL" set-prio oomtest/b 50
	hog_ready "$CG/a" 6 a
	low=$HOG_PID
	hog_ready "$CG/b" 12 b
	high=$HOG_PID

	reap "$low"
	[ "$REAPED" = 137 ]
	is_alive "$high"
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = 1 ]
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=prio_test\$"
	kmsg_since_mark | grep -q "Killed process $low (hog)"

	"$OOMCTL" -j status >"$BATS_TEST_TMPDIR/status.json"
	s() { gojq -r "$1" "$BATS_TEST_TMPDIR/status.json"; }
	[ "$(s .policy)" = cgprio ]
	[ "$(s .name)" = prio_test ]
	[ "$(s .last_policy_name)" = prio_test ]
	[ "$(s .counters.kills)" = 1 ]
	[ "$(s .counters.failures)" = 0 ]
	(($(s .counters.invocations) >= 1))
	(($(s .counters.selections) >= 1))
	[ "$(s .last_victim.pid)" = "$low" ]
	[ "$(s .last_victim.comm)" = hog ]
	[ "$(s .last_victim.cgroup)" = /oomtest/a ]
	[ "$(s .last_victim.policy_name)" = prio_test ]
	[ "$(s '.prios | map(select(.cgroup == "/oomtest/a")) | .[0].prio')" = 10 ]
	[ "$(s '.prios | map(select(.cgroup == "/oomtest/b")) | .[0].prio')" = 50 ]
	[ "$(s '.foreign | length')" = 0 ]
	[ "$(s '.links | length')" = 10 ]
}

@test "cgprio: a cgroup without an entry inherits its nearest ancestor's" {
	mkdir "$CG/a/x"
	"$OOMCTL" attach cgprio
	"$OOMCTL" set-prio "$CG/a" 10
	"$OOMCTL" set-prio "$CG/b" 50
	[ "$(oomctl_json .prio get-prio "$CG/a/x")" = 10 ]
	[ "$(oomctl_json .source get-prio "$CG/a/x")" = inherited ]
	[ "$(oomctl_json .from get-prio "$CG/a/x")" = "$CG/a" ]

	hog_ready "$CG/a/x" 4 x
	low=$HOG_PID
	hog_ready "$CG/b" 14 b
	high=$HOG_PID
	reap "$low"
	[ "$REAPED" = 137 ]
	is_alive "$high"
	[ "$(status_field .last_victim.cgroup)" = /oomtest/a/x ]
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=cgprio\$"
}

@test "cgprio: unset-prio really falls back to the default priority" {
	"$OOMCTL" attach cgprio --default-prio 100
	"$OOMCTL" set-prio "$CG/a" 10
	"$OOMCTL" set-prio "$CG/b" 50
	"$OOMCTL" unset-prio "$CG/a"
	[ "$(oomctl_json .source get-prio "$CG/a")" = default ]
	[ "$(oomctl_json .prio get-prio "$CG/a")" = 100 ]
	run "$OOMCTL" unset-prio "$CG/a"
	[ "$status" -eq 1 ]
	[[ $output == *"has no prio of its own"* ]]

	# a (now 100) outranks b (50): b dies though it came second.
	hog_ready "$CG/a" 4 a
	small=$HOG_PID
	start_hog "$CG/b" 64
	big=$HOG_PID
	reap "$big"
	[ "$REAPED" = 137 ]
	is_alive "$small"
}

@test "cgprio: among equal priorities the kernel heuristic decides" {
	"$OOMCTL" attach cgprio
	"$OOMCTL" set-prio "$CG/a" 10
	"$OOMCTL" set-prio "$CG/b" 10
	# Scan order: big (a), small (b), bigger (b). The first OOM finds big
	# largest, though scanned first; the second finds bigger largest,
	# though small came before it. Neither "first" nor "last" would do.
	hog_ready "$CG/a" 10 a
	big=$HOG_PID
	hog_ready "$CG/b" 2 b
	small=$HOG_PID
	start_hog "$CG/b" 64
	bigger=$HOG_PID
	reap "$big"
	[ "$REAPED" = 137 ]
	reap "$bigger"
	[ "$REAPED" = 137 ]
	is_alive "$small"
	kmsg_since_mark | grep -o "Killed process [0-9]*" >"$BATS_TEST_TMPDIR/kills"
	[ "$(cat "$BATS_TEST_TMPDIR/kills")" = "Killed process $big
Killed process $bigger" ]
}

@test "cgprio: a removed cgroup's entry disappears from the map" {
	"$OOMCTL" attach cgprio
	mkdir "$CG/gone"
	"$OOMCTL" set-prio "$CG/gone" 7
	id=$(oomctl_json '.[0].cgroup_id' get-prio)
	[ "$id" = "$(stat -c %i "$CG/gone")" ]
	# The map itself, keyed by cgroup id: that entry, and only it.
	bpftool -j map dump pinned "$PINS/policy/map_cgprio_prios" >"$BATS_TEST_TMPDIR/map.json"
	[ "$(gojq -c '[.[].formatted | [.key, .value]]' "$BATS_TEST_TMPDIR/map.json")" = "[[$id,7]]" ]
	rmdir "$CG/gone"
	[ "$(oomctl_json 'length' get-prio)" = 0 ]
	bpftool -j map dump pinned "$PINS/policy/map_cgprio_prios" >"$BATS_TEST_TMPDIR/map.json"
	[ "$(gojq -c . "$BATS_TEST_TMPDIR/map.json")" = "[]" ]
}

@test "cgprio: bad cgroups and priorities are refused and change nothing" {
	"$OOMCTL" attach cgprio
	"$OOMCTL" set-prio "$CG/a" 10
	run "$OOMCTL" set-prio "$CG/nonexistent" 5
	[ "$status" -eq 1 ]
	[[ $output == *"nonexistent"*"does not exist"* ]]
	run "$OOMCTL" set-prio "$CG/a/memory.max" 5
	[ "$status" -eq 1 ]
	[[ $output == *"not a directory"* ]]
	run "$OOMCTL" set-prio /tmp 5
	[ "$status" -eq 1 ]
	[[ $output == *"not on a cgroup2 filesystem"* ]]
	run "$OOMCTL" set-prio "$CG/a" 10abc
	[ "$status" -eq 2 ]
	[[ $output == *"'10abc'"* ]]
	run "$OOMCTL" set-prio "$CG/a" 1001
	[ "$status" -eq 2 ]
	run "$OOMCTL" add-pid 1
	[ "$status" -eq 1 ]
	[[ $output == *"attached policy is cgprio, not pid"* ]]
	[ "$(oomctl_json '.[0].prio' get-prio)" = 10 ]
	[ "$(oomctl_json 'length' get-prio)" = 1 ]
}
