#!/usr/bin/env bats
# Bash completion (completion/oomctl.bash), driven the way bash drives it.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	# oomctl on PATH is the built one (policy names come from it).
	PATH=$TOP/build:$PATH
	# shellcheck source=/dev/null
	. "$TOP/completion/oomctl.bash"
	export OOMCTL_CGROUP_ROOT=$BATS_TEST_TMPDIR/cg
	mkdir -p "$OOMCTL_CGROUP_ROOT/web/api" "$OOMCTL_CGROUP_ROOT/batch"
}

# complete WORDS... — COMPREPLY for the command line "WORDS..." with the
# cursor at the end of the last word (give "" to complete a new word),
# sorted, one per line.
complete_line() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	_oomctl
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

@test "commands, and global options before them" {
	[ "$(complete_line oomctl se | tr '\n' ' ')" = "set-prio set-slice " ]
	[ "$(complete_line oomctl ap | tr '\n' ' ')" = "apply " ]
	complete_line oomctl "" | grep -qx explain
	[ "$(complete_line oomctl --ver | tr '\n' ' ')" = "--verbose --version " ]
	[ "$(complete_line oomctl -j --bpffs /tmp st | tr '\n' ' ')" = "status " ]
}

@test "a command's own options, and the common ones" {
	[ "$(complete_line oomctl attach cgprio --de | tr '\n' ' ')" = "--debug --default-prio " ]
	[ "$(complete_line oomctl apply --d | tr '\n' ' ')" = "--debug --dry-run " ]
	[ "$(complete_line oomctl explain --t | tr '\n' ' ')" = "--top " ]
	! complete_line oomctl status --d | grep -q dry-run
}

@test "policy names after attach, once" {
	[ "$(complete_line oomctl attach "" | tr '\n' ' ')" = "abort-all cgprio help pid rss-slice " ]
	[ "$(complete_line oomctl attach r | tr '\n' ' ')" = "rss-slice " ]
	[ -z "$(complete_line oomctl attach cgprio "")" ]
}

@test "cgroup paths: relative to the cgroup2 mount, or absolute" {
	[ "$(complete_line oomctl set-prio w | tr '\n' ' ')" = "web/ " ]
	[ "$(complete_line oomctl set-prio web/ | tr '\n' ' ')" = "web/api/ " ]
	[ "$(complete_line oomctl set-prio "$OOMCTL_CGROUP_ROOT/b" | tr '\n' ' ')" = "$OOMCTL_CGROUP_ROOT/batch/ " ]
	[ "$(complete_line oomctl attach rss-slice --slice b | tr '\n' ' ')" = "batch/ " ]
	[ "$(complete_line oomctl set-slice web batch/ "" | wc -l)" = 2 ]    # repeats
	# PRIO is a number: nothing to offer.
	[ -z "$(complete_line oomctl set-prio web "")" ]
	[ -z "$(complete_line oomctl attach cgprio --default-prio "")" ]
}

@test "pids, files, help COMMAND" {
	complete_line oomctl add-pid "$$" | grep -qx "$$"
	touch "$BATS_TEST_TMPDIR/node.conf"
	[ "$(complete_line oomctl apply --dry-run "$BATS_TEST_TMPDIR/no" | tr '\n' ' ')" = "$BATS_TEST_TMPDIR/node.conf " ]
	[ "$(complete_line oomctl help ex | tr '\n' ' ')" = "explain " ]
	[ "$(complete_line oomctl get-pids "" | tr '\n' ' ')" = "help " ]
}

@test "drift: every command and every option the binary's help lists is completed" {
	cmds=$(oomctl help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
	[ -n "$cmds" ]
	for c in $cmds; do
		complete_line oomctl "${c:0:3}" | grep -qx "$c" || { echo "command $c not completed"; return 1; }
		[ "$c" = help ] && continue
		for o in $(oomctl "$c" help | grep -oE '(^|[ [])--[a-z-]+' | tr -d ' [' | sort -u); do
			complete_line oomctl "$c" "$o" | grep -qx -- "$o" ||
				{ echo "option $o of $c not completed"; return 1; }
		done
	done
}
