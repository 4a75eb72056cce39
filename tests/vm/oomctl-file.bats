#!/usr/bin/env bats
# oomctl attach PATH.bpf.o and apply's "policy PATH": a policy object given
# as a file is checked, attached and pinned like a bundled one, and every
# command reads it from its own description (tests/vm/run --mem 1G). The
# file is a copy of the built cgprio object, under another directory; an
# object with a program outside the OOM hooks, or without the programs of
# the contract, is refused before the kernel sees it, leaving nothing.

load helpers
load oomctl-helpers

setup() {
	cg_setup
	cg_write "$CG" memory.max 64M
	mkdir "$CG/a" "$CG/b" "$CG/t"
	kmsg_mark
	MINE=$BATS_TEST_TMPDIR/mine.bpf.o
	cp "$B/policies/cgprio.bpf.o" "$MINE"
}

teardown() {
	oomctl_teardown
}


# nothing_attached BASELINE — no pin, no program left of a refused attach.
nothing_attached() {
	[ ! -e "$PINS/policy" ]
	[ -z "$(find "$PINS" -mindepth 1 2>/dev/null)" ]
	wait_for 10 objects_are "$1"
	[ "$(status_field .attached)" = false ]
}

@test "attach FILE: attached and pinned like a bundled policy; status, list, set-prio, explain and events read it from its description" {
	cd "$BATS_TEST_TMPDIR"
	run "$OOMCTL" -j attach ./mine.bpf.o --name mine
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(gojq -r '"\(.policy) \(.file) \(.name) \(.default_prio)"' <<<"$output")" = "cgprio ./mine.bpf.o mine 0" ]
	[ "$(status_field '"\(.policy) \(.source) \(.name)"')" = "cgprio file mine" ]
	# Listed last, after the bundled ones, none of which is attached.
	[ "$(oomctl_json '.[-1] | "\(.name):\(.source):\(.attached)"' list)" = "cgprio:file:true" ]
	[ "$(oomctl_json '[.[] | select(.attached)] | length' list)" = 1 ]
	[ "$(oomctl_json '[.[] | select(.source == "bundled")] | length' list)" -ge 5 ]
	[ "$(eval_links)" = 1 ]

	"$OOMCTL" set-prio "$CG/a" 10
	"$OOMCTL" set-prio "$CG/b" 50
	"$OOMCTL" set-prio "$CG/t" 1000
	[ "$(oomctl_json '[.prios[] | "\(.cgroup)=\(.prio)"] | sort | join(" ")' status)" = \
		"/oomtest/a=10 /oomtest/b=50 /oomtest/t=1000" ]
	hog_ready "$CG/a" 6 a
	low=$HOG_PID
	hog_ready "$CG/b" 12 b
	high=$HOG_PID
	[ "$(oomctl_json '.victim.pid' explain --cgroup "$CG")" = "$low" ]
	[ "$(oomctl_json '.ranked[0].rank | "\(.class) \(.rule) \(.prio) \(.prio_from)"' explain --cgroup "$CG")" = \
		"candidate prio 10 /oomtest/a" ]

	overflow
	reap "$low"
	[ "$REAPED" = 137 ]
	reap "$CHARGER"
	is_alive "$high"
	run "$OOMCTL" -j events --timeout 0
	[ "$status" -eq 0 ]
	[ "$(gojq -r 'select(.kind == "kill") | "\(.victim.pid) \(.policy_name) \(.reason)"' <<<"$output")" = \
		"$low mine cgroup prio 10 < 50 (set on /oomtest/a)" ]
	kmsg_since_mark | grep -q "policy_name=mine"

	run "$OOMCTL" detach
	[ "$status" -eq 0 ]
	[[ $output == "detached cgprio: "* ]]
	[ ! -e "$PINS/policy" ]
}

@test "attach FILE: a program outside the OOM hooks, or a missing one of the contract, is refused before loading; nothing is left" {
	objects_now
	base=$OBJS
	run "$OOMCTL" attach "$B/policies/stray-hook.bpf.o"
	echo "$output"
	[ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ]
	[ "$output" = "oomctl: attach: $B/policies/stray-hook.bpf.o: program stray_read attaches to fentry/vfs_read, not to an OOM hook oomctl knows" ]
	nothing_attached "$base"

	# bare.bpf.o describes itself and has the maps, but of the programs
	# only an evaluate one.
	run "$OOMCTL" attach "$B/policies/bare.bpf.o"
	echo "$output"
	[ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ]
	[[ $output == "oomctl: attach: $B/policies/bare.bpf.o: it has no program in "*": build it on oomctl/policy.bpf.h" ]]
	nothing_attached "$base"

	# Beside an attached policy, a refused file changes nothing of it.
	"$OOMCTL" attach cgprio
	"$OOMCTL" set-prio "$CG/a" 7
	before=$(link_ids_and_prios)
	run "$OOMCTL" attach --replace "$B/policies/stray-hook.bpf.o"
	[ "$status" -eq 1 ]
	[ "$(link_ids_and_prios)" = "$before" ]
}

# link_ids_and_prios — the attached policy's links and entries.
link_ids_and_prios() {
	oomctl_json '"\(.policy) \(.source) \([.links[].id] | sort) \([.prios[] | "\(.cgroup)=\(.prio)"])"' status
}

@test "apply: 'policy PATH' attaches the object with the file's entries, and attaches it again at every apply" {
	conf=$BATS_TEST_TMPDIR/oomctl.conf
	printf '%s\n' "policy $MINE" "name fromfile" "default-prio 300" "prio $CG/a 20" >"$conf"
	run "$OOMCTL" apply "$conf"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(status_field '"\(.policy) \(.source) \(.name) \(.default_prio)"')" = "cgprio file fromfile 300" ]
	[ "$(oomctl_json '[.prios[] | "\(.cgroup)=\(.prio)"] | join(" ")' status)" = "/oomtest/a=20" ]
	links=$(oomctl_json '[.links[].id] | sort | join(" ")' status)

	# Its code may have changed under the same description: attached anew.
	run "$OOMCTL" apply "$conf"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(oomctl_json '[.links[].id] | sort | join(" ")' status)" != "$links" ]
	[ "$(oomctl_json '[.prios[] | "\(.cgroup)=\(.prio)"] | join(" ")' status)" = "/oomtest/a=20" ]

	# Back to the bundled cgprio: a new policy too, entries as the file says.
	printf '%s\n' "policy cgprio" "prio $CG/b 40" >"$conf"
	run "$OOMCTL" apply "$conf"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(status_field '"\(.policy) \(.source) \(.name)"')" = "cgprio bundled cgprio" ]
	[ "$(oomctl_json '[.prios[] | "\(.cgroup)=\(.prio)"] | join(" ")' status)" = "/oomtest/b=40" ]
}

@test "out of tree: the example policy, built from a make install tree, the running kernel's BTF and clang alone, kills by its rule; explain and events agree" {
	T=$BATS_TEST_TMPDIR/dest
	W=$BATS_TEST_TMPDIR/work
	make -C "$TOP" --no-print-directory install DESTDIR="$T" PREFIX=/usr >/dev/null
	mkdir "$W"
	cp "$T/usr/share/doc/oomctl/examples/newest.bpf.c" "$W/"
	bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$W/vmlinux.h"
	# Only the installed headers and libbpf's (bpf/bpf_helpers.h): the
	# tree's bpf-policies/ is nowhere on the include path.
	(cd "$W" && clang -target bpf -g -O2 -D__TARGET_ARCH_x86 -I. -I"$T/usr/include" \
		-c newest.bpf.c -o newest.bpf.o)
	installed=$T/usr/sbin/oomctl
	"$installed" attach "$W/newest.bpf.o"
	[ "$("$installed" -j status | gojq -r '"\(.policy) \(.source) \(.name)"')" = "newest file newest" ]
	[ "$("$installed" -j list | gojq -r '.[-1] | "\(.name) \(.summary)"')" = "newest the process started last dies first" ]

	# The older process is the larger: the kernel alone would kill it.
	hog_ready "$CG/a" 12 old
	old=$HOG_PID
	hog_ready "$CG/b" 6 new
	new=$HOG_PID
	"$installed" -j explain --cgroup "$CG" >"$BATS_TEST_TMPDIR/explain.json"
	[ "$(gojq -r '"\(.victim.pid) \(.victim.reason) \(.ranked[0].rank.rule)"' "$BATS_TEST_TMPDIR/explain.json")" = \
		"$new started last newest" ]
	[ "$(gojq -r '[.ranked[].pid] | join(" ")' "$BATS_TEST_TMPDIR/explain.json")" = "$new $old" ]

	# The charger, started last, is now the newest: it dies, both hogs live.
	overflow
	reap "$CHARGER"
	[ "$REAPED" = 137 ]
	is_alive "$old"
	is_alive "$new"
	run "$installed" -j events --timeout 0
	[ "$status" -eq 0 ]
	[ "$(gojq -r 'select(.kind == "kill") | "\(.victim.pid) \(.policy_name) \(.reason) \(.rank.rule)"' <<<"$output")" = \
		"$CHARGER newest started last newest" ]
	"$installed" detach
}
