#!/usr/bin/env bats
# Bash completion (completion/oomctl.bash), driven the way bash drives it
# (complete.bash): COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT set, the
# function that `complete -p oomctl` names called, COMPREPLY read. The drift
# test holds it to what build/oomctl lists.

load complete

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	# The completion uses bash-completion's helpers, as when installed.
	BC=/usr/share/bash-completion/bash_completion
	[ -r "$BC" ] || { echo "no $BC: install bash-completion (make deps)"; return 1; }
	# shellcheck source=/dev/null
	. "$BC"
	# shellcheck source=/dev/null
	. "$TOP/completion/oomctl.bash"
	# 'oomctl' on PATH is the built one: policy names come from it.
	PATH=$TOP/build:$PATH
	# A cgroup tree of real directories, where CGROUP arguments complete.
	export OOMCTL_CGROUP_ROOT=$BATS_TEST_TMPDIR/cg
	mkdir -p "$OOMCTL_CGROUP_ROOT/web/api" "$OOMCTL_CGROUP_ROOT/batch"
}

# completes LINE WORD... — LINE completes to exactly WORD... (none: nothing).
completes() {
	local line=$1 got want
	shift
	got=$(completions "$line")
	want=$(printf '%s\n' "$@" | sed '/^$/d' | sort)
	[ "$got" = "$want" ] && return 0
	printf 'completing "%s"\n  got:  %s\n  want: %s\n' "$line" \
		"${got//$'\n'/ }" "$*"
	return 1
}

# offers LINE WORD — WORD is among LINE's completions.
offers() {
	completions "$1" | grep -qxF -- "$2" && return 0
	echo "completing \"$1\" does not offer '$2':" "$(completions "$1" | tr '\n' ' ')"
	return 1
}

@test "commands and aliases; global options before them" {
	completes "oomctl s" set-prio set-slice show status
	completes "oomctl ap" apply
	completes "oomctl l" list ls
	completes "oomctl --ver" --verbose --version
	completes "oomctl -" -j --json -p --pretty -d --debug -v --verbose \
		--bpffs -h --help -V --version
	# The options (and --bpffs's value) are skipped to find the command.
	completes "oomctl -j --bpffs /tmp st" status
	completes "oomctl --bpffs=/tmp -p st" status
	completes "oomctl frobnicate " # not a command: nothing
}

@test "a command's own options, and the common ones" {
	completes "oomctl apply --d" --debug --dry-run
	completes "oomctl apply --s" --skip-missing
	completes "oomctl explain --t" --top
	completes "oomctl events --c" --count
	completes "oomctl status --d" --debug
	completes "oomctl ls -" -j --json -p --pretty -d --debug -v --verbose \
		--bpffs -h --help
	# attach: all of them until the policy is known, then those it takes.
	completes "oomctl attach --de" --debug --default-prio
	completes "oomctl attach cgprio --de" --debug --default-prio
	completes "oomctl attach pid --de" --debug
	completes "oomctl attach rss-slice --s" --slice
	completes "oomctl attach abort-all --c" --cgroup
	completes "oomctl attach abort-all --s"
	completes "oomctl attach protect --c" --cgroup
	completes "oomctl attach protect --m"
	# help takes commands, not options.
	completes "oomctl help -"
}

@test "policy names after attach, once" {
	# shellcheck disable=SC2046 # one word a policy name: split on purpose
	completes "oomctl attach " $("$TOP/build/oomctl" -j list | jq -r '.[].name') help
	completes "oomctl attach r" rss-slice
	completes "oomctl -j attach --replace a" abort-all
	completes "oomctl attach cgprio "
	completes "oomctl attach --name x c" cgprio
}

# stub_oomctl — an oomctl first on PATH that answers 'list' with a policy
# the static list lacks (and a quoted "name":"..." inside a summary), and
# 'get-pids' with a target that is no running process (another one under
# --bpffs /x). It stands for a newer oomctl; only its output is read.
stub_oomctl() {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/oomctl" <<'STUB'
#!/bin/sh
case "$*" in
"-j list") echo '[{"name":"cgprio","summary":"x","attached":null,"options":["--default-prio"]},{"name":"new-one","summary":"quotes: \"name\":\"no\"","attached":null,"options":["--slice","--max-pause"]}]' ;;
"-j get-pids") echo '[{"pid":4242,"comm":"x"}]' ;;
"--bpffs /x -j get-pids") echo '[{"pid":4343,"comm":"x"}]' ;;
*) exit 1 ;;
esac
STUB
	chmod +x "$BATS_TEST_TMPDIR/bin/oomctl"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH
}

@test "policy names, their attach options and pid targets come from oomctl; without it, none" {
	# The built binary's list and the completion's agree.
	want=$("$TOP/build/oomctl" -j list | jq -r '.[].name')
	[ -n "$want" ]
	# shellcheck disable=SC2086 # one word a policy name: split on purpose
	completes "oomctl attach " $want help
	# What oomctl lists is what is offered.
	stub_oomctl
	oomctl -j list | jq -e '.[1].summary == "quotes: \"name\":\"no\""'
	completes "oomctl attach " cgprio new-one help
	completes "oomctl attach new-one --s" --slice
	completes "oomctl attach new-one --m" --max-pause
	completes "oomctl attach new-one --d" --debug
	completes "oomctl attach cgprio --d" --debug --default-prio
	completes "oomctl del-pid " 4242 help
	completes "oomctl --bpffs /x del-pid 1 " 4343
	# An oomctl that fails: no policy, no policy option; the running
	# processes.
	printf '#!/bin/sh\nexit 1\n' >"$BATS_TEST_TMPDIR/bin/oomctl"
	completes "oomctl attach " help
	completes "oomctl attach cgprio --de" --debug
	offers "oomctl del-pid " "$$"
}

@test "cgroup paths: relative to the cgroup2 mount, or absolute" {
	root=$OOMCTL_CGROUP_ROOT
	completes "oomctl set-prio " web/ batch/ help
	completes "oomctl set-prio w" web/
	completes "oomctl set-prio web/" web/api/
	completes "oomctl get-prio b" batch/
	completes "oomctl unset-prio web/a" web/api/
	completes "oomctl set-prio $root/b" "$root/batch/"
	completes "oomctl set-prio $root/" "$root/web/" "$root/batch/"
	# On the way to the mount only the mount is offered, not /tmp's files.
	completes "oomctl set-prio ${root%/*}/" "$root/"
	completes "oomctl set-prio /nonexistent"
	# Options taking a CGROUP, in both spellings.
	completes "oomctl attach rss-slice --slice b" batch/
	completes "oomctl attach abort-all --cgroup=w" web/
	completes "oomctl explain --cgroup web/" web/api/
	# set-slice and unset-slice take many.
	completes "oomctl set-slice web batch " web/ batch/
	completes "oomctl unset-slice web b" batch/
	# PRIO is a number: nothing to offer; nor after the last argument.
	completes "oomctl set-prio web "
	completes "oomctl get-prio web "
	completes "oomctl attach cgprio --default-prio "
	completes "oomctl events --count "
}

@test "the cgroup2 mount is the default root" {
	unset OOMCTL_CGROUP_ROOT
	mnt=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	[ -n "$mnt" ] || skip "no cgroup2 mount on this host"
	want=$(cd "$mnt" && find . -mindepth 1 -maxdepth 1 -type d | sed 's|^\./||; s|$|/|' | sort)
	[ "$(completions "oomctl set-prio " | grep -vx help)" = "$want" ]
	completes "oomctl set-prio ${mnt%?}" "$mnt/"
}

@test "pids, files, directories" {
	# add-pid: running processes, this shell among them.
	offers "oomctl add-pid " "$$"
	offers "oomctl add-pid 1 " "$$"
	# apply FILE; --bpffs DIR.
	touch "$BATS_TEST_TMPDIR/node.conf"
	mkdir "$BATS_TEST_TMPDIR/nodir"
	completes "oomctl apply --dry-run $BATS_TEST_TMPDIR/no" \
		"$BATS_TEST_TMPDIR/node.conf" "$BATS_TEST_TMPDIR/nodir"
	completes "oomctl apply $BATS_TEST_TMPDIR/node.conf "
	completes "oomctl --bpffs $BATS_TEST_TMPDIR/no" "$BATS_TEST_TMPDIR/nodir"
	completes "oomctl status --bpffs=$BATS_TEST_TMPDIR/no" "$BATS_TEST_TMPDIR/nodir"
}

@test "help COMMAND, and COMMAND help" {
	completes "oomctl help e" entry events explain
	offers "oomctl help " apply
	completes "oomctl help list "
	# 'help' is a command's first argument only, and ends the line.
	completes "oomctl get-pids " help
	completes "oomctl attach h" help
	completes "oomctl attach help "
	completes "oomctl attach cgprio h"
}

@test "drift: every command and option build/oomctl lists is completed" {
	bin=$TOP/build/oomctl
	[ -x "$bin" ] || { echo "no $bin: run make all"; return 1; }
	cmds=$("$bin" help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
	[ "$(echo "$cmds" | wc -l)" -ge 10 ]
	all=$(completions "oomctl ")
	for c in $cmds; do
		grep -qxF "$c" <<<"$all" || { echo "command $c not completed"; return 1; }
		offers "oomctl help " "$c"
	done
	# Aliases ("Aliases: ls = list, show = status") and the global options.
	for a in $("$bin" help | sed -n 's/^Aliases: //p' | grep -oE '[a-z-]+ =' | tr -d ' ='); do
		grep -qxF "$a" <<<"$all" || { echo "alias $a not completed"; return 1; }
	done
	for o in $("$bin" help | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-z-]*' | tr -d ' ,'); do
		offers "oomctl -" "$o"
	done
	# Each command's options, as 'oomctl COMMAND help' prints them.
	for c in $cmds; do
		[ "$c" = help ] && continue
		opts=$("$bin" "$c" help | grep -oE -- '(^|[ [,])--[a-z][a-z-]*' | tr -d ' [,' | sort -u)
		[ -n "$opts" ]
		for o in $opts; do
			offers "oomctl $c -" "$o"
		done
	done
}

# fake_systemd_oomd — systemd-oomd's two files under OOMCTL_SYSTEMD_ROOT:
# an oomctl in usr/bin, and a completion named oomctl that, like systemd's,
# defines _oomctl and registers it (it offers its verbs, dump and help).
fake_systemd_oomd() {
	export OOMCTL_SYSTEMD_ROOT=$BATS_TEST_TMPDIR/sd
	local c=$OOMCTL_SYSTEMD_ROOT/usr/share/bash-completion/completions
	mkdir -p "$OOMCTL_SYSTEMD_ROOT/usr/bin" "$c"
	printf '#!/bin/sh\nexit 0\n' >"$OOMCTL_SYSTEMD_ROOT/usr/bin/oomctl"
	chmod +x "$OOMCTL_SYSTEMD_ROOT/usr/bin/oomctl"
	cat >"$c/oomctl" <<'SD'
_oomctl() { COMPREPLY=($(compgen -W 'dump help' -- "${COMP_WORDS[COMP_CWORD]}")); }
complete -F _oomctl oomctl
SD
}

@test "registered for oomctl as _oomctl_complete: no clash with systemd-oomd's _oomctl" {
	[ "$(complete -p oomctl)" = "complete -F _oomctl_complete oomctl" ]
	run declare -F _oomctl
	[ "$status" -ne 0 ]
}

@test "systemd-oomd's oomctl gets systemd's completion, ours ours, whichever was completed first" {
	fake_systemd_oomd
	sd=$OOMCTL_SYSTEMD_ROOT/usr/bin/oomctl
	completes "$TOP/build/oomctl ap" apply
	completes "$sd " dump help
	# Its file is loaded, and ours is registered again in its place.
	[ "$(complete -p oomctl)" = "complete -F _oomctl_complete oomctl" ]
	completes "$sd d" dump
	completes "oomctl ap" apply
	# `oomctl` is whichever PATH finds first: systemd's for a user whose
	# PATH has /usr/bin and not /usr/sbin.
	PATH=$OOMCTL_SYSTEMD_ROOT/usr/bin:$PATH
	completes "oomctl " dump help
	# shellcheck disable=SC2046 # one word a policy name: split on purpose
	completes "$TOP/build/oomctl attach p" $("$TOP/build/oomctl" -j list | jq -r '.[].name | select(startswith("p"))')
}

@test "without systemd-oomd's completion file, every oomctl gets ours" {
	fake_systemd_oomd
	rm "$OOMCTL_SYSTEMD_ROOT/usr/share/bash-completion/completions/oomctl"
	PATH=$OOMCTL_SYSTEMD_ROOT/usr/bin:$PATH
	completes "oomctl ap" apply
}
