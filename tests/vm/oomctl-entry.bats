#!/usr/bin/env bats
# oomctl entry add|del|get: the attached policy's entries, by the kind its
# description declares, in its words; and set-prio, add-pid, set-slice,
# which are the same for one bundled policy (tests/vm/run --mem 1G).

load helpers
load oomctl-helpers

setup() {
	cg_setup
	mkdir -p "$CG/a/sub" "$CG/b"
	kmsg_mark
}

teardown() {
	oomctl_teardown
}

# out ARGS... — oomctl ARGS: what it prints (errors too) and its status,
# to compare two commands whole.
out() { "$OOMCTL" "$@" 2>&1; echo "status $?"; }

@test "entry, cgprio: add, get (own, inherited, default), del, list; as set-prio, get-prio, unset-prio print them" {
	"$OOMCTL" attach cgprio --default-prio 300
	a=$(out entry add "$CG/a" 10)
	aj=$(out -j entry add "$CG/a" 10)
	[ "$a" = "$CG/a: prio 10
status 0" ]
	[ "$aj" = "$(out -j set-prio "$CG/a" 10)" ]
	[ "$(out entry get "$CG/a")" = "$(out get-prio "$CG/a")" ]
	[ "$(oomctl_json '"\(.prio) \(.source) \(.from)"' entry get "$CG/a/sub")" = "10 inherited $CG/a" ]
	[ "$(oomctl_json '"\(.prio) \(.source)"' entry get "$CG/b")" = "300 default" ]
	[ "$(out entry get)" = "$(out get-prio)" ]
	[ "$(out -j entry get)" = "$(out -j get-prio)" ]
	[ "$(out entry del "$CG/a")" = "$CG/a: prio 10 removed
status 0" ]
	run "$OOMCTL" entry del "$CG/a"
	[ "$status" -eq 1 ] && [ "$output" = "oomctl: entry: $CG/a has no prio of its own" ]
	# The value's range is the policy's: refused before anything changes.
	run "$OOMCTL" entry add "$CG/a" 1001
	[ "$status" -eq 2 ] && [[ $output == "oomctl: entry: PRIO '1001' is out of range, want 0..1000; "* ]]
	run "$OOMCTL" entry add "$CG/a"
	[ "$status" -eq 2 ] && [[ $output == "oomctl: entry: missing argument; "* ]]
	run "$OOMCTL" entry add "$CG/nosuch" 5
	[ "$status" -eq 1 ]
	[ "$(oomctl_json 'length' entry get)" = 0 ]
}

@test "entry, pid: add processes, get one, del; a thread or a missing process changes nothing" {
	"$OOMCTL" attach pid
	hog_ready "$CG/a" 1 one
	p1=$HOG_PID
	hog_ready "$CG/a" 1 two
	p2=$HOG_PID
	[ "$(out entry add "$p1" "$p2")" = "added $p1 (hog)
added $p2 (hog)
status 0" ]
	[ "$(out -j entry get)" = "$(out -j get-pids)" ]
	[ "$(oomctl_json '"\(.pid) \(.member)"' entry get "$p1")" = "$p1 true" ]
	[ "$(out entry del "$p1")" = "removed $p1
status 0" ]
	[ "$(oomctl_json .member entry get "$p1")" = false ]
	run "$OOMCTL" entry del "$p2" "$p1"
	[ "$status" -eq 1 ] && [ "$output" = "oomctl: entry: $p1 is not a target" ]
	# All or none: p2 is still listed.
	[ "$(oomctl_json '[.[].pid] | join(" ")' entry get)" = "$p2" ]
	run "$OOMCTL" entry add 4194303
	[ "$status" -eq 1 ] && [ "$output" = "oomctl: entry: no process 4194303" ]
	[ "$(oomctl_json '[.[].pid] | join(" ")' entry get)" = "$p2" ]
}

@test "entry, rss-slice and abort-all: a set of cgroups, in each policy's words; an unscoped abort-all takes none" {
	"$OOMCTL" attach rss-slice
	[ "$(out entry get)" = "no slices
status 0" ]
	[ "$(out get-slices)" = "no slices: the kernel heuristic decides every OOM
status 0" ]
	[ "$(out entry add "$CG/a" "$CG/b")" = "$CG/a: in the slices
$CG/b: in the slices
status 0" ]
	[ "$(oomctl_json '"\(.member) \(.source) \(.from)"' entry get "$CG/a/sub")" = "true inherited $CG/a" ]
	[ "$(out -j entry get)" = "$(out -j get-slices)" ]
	[ "$(out entry del "$CG/b")" = "$CG/b: removed from the slices
status 0" ]
	run "$OOMCTL" entry del "$CG/a" "$CG/b"
	[ "$status" -eq 1 ] && [ "$output" = "oomctl: entry: $CG/b is not a slice" ]
	[ "$(oomctl_json '[.[].cgroup] | join(" ")' entry get)" = /oomtest/a ]

	# abort-all's scope is its set; it was scoped at attach, or it is not.
	"$OOMCTL" attach --replace abort-all
	run "$OOMCTL" entry add "$CG/a"
	[ "$status" -eq 1 ]
	[ "$output" = "oomctl: entry: abort-all was attached without a scope: it acts on every memcg OOM; give its cgroups when attaching (--cgroup) or in oomctl.conf(5)" ]
	[ "$(status_field .scoped)" = false ]
	"$OOMCTL" attach --replace abort-all --cgroup "$CG/a"
	[ "$(out entry add "$CG/b")" = "$CG/b: in the scope
status 0" ]
	[ "$(status_field '[.scope[].cgroup] | sort | join(" ")')" = "/oomtest/a /oomtest/b" ]
	[ "$(out entry del "$CG/b")" = "$CG/b: removed from the scope
status 0" ]
	run "$OOMCTL" entry del "$CG/b"
	[ "$status" -eq 1 ] && [ "$output" = "oomctl: entry: $CG/b is not in the scope" ]
}

@test "entry: no policy attached, a bad action, no action are one-line errors" {
	run "$OOMCTL" entry get
	[ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ]
	[[ $output == "oomctl: entry: no oomctl policy is attached"* ]]
	run "$OOMCTL" entry frob
	[ "$status" -eq 2 ] && [[ $output == "oomctl: entry: unknown action 'frob' (add, del or get)"* ]]
	run "$OOMCTL" -j entry
	[ "$status" -eq 2 ] && [ "$(gojq -r .error <<<"$output")" = "entry: add, del or get?; see 'oomctl entry help'" ]
}
