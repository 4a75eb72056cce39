# oomctl(8) bash completion                                -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0
#
# Uses bash-completion's helpers (_init_completion, _filedir, _pids): it is
# loaded by bash-completion from its completions directory.
#
# OOMCTL_CGROUP_ROOT: complete CGROUP arguments under this directory instead
# of the cgroup2 mount (for the tests).
#
# Debian's systemd-oomd has a command oomctl too: /usr/bin/oomctl, with a
# completion file of its own named oomctl (its function: _oomctl). Ours is
# installed as oomctl.bash, which bash-completion loads for `oomctl` as well
# (it tries oomctl, oomctl.bash and _oomctl), so that the two packages share
# no file; and it completes the oomctl the command line runs: for systemd's
# it hands over to systemd's completion. OOMCTL_SYSTEMD_ROOT: look for
# systemd-oomd's two files under this directory instead of / (for the tests).

_oomctl_commands="list attach detach status entry set-prio get-prio unset-prio
	add-pid del-pid get-pids set-slice unset-slice get-slices apply events
	explain help"
_oomctl_aliases="ls show"
_oomctl_common_opts="-j --json -p --pretty -d --debug -v --verbose --bpffs
	-h --help"

# The command table: each command's positional arguments, by kind, and its
# own options (the common ones go with every command but help).
#   policy   a policy name         cgroup   a cgroup v2 directory
#   pid      a running process     target   a pid the pid policy targets
#   file     a file                command  a command name
#   value    typed by the user (PRIO, NAME, N): nothing to offer
#   action   entry's add, del or get
# A kind ending in "..." repeats. 'COMMAND help' is offered by the code.
_oomctl_command()
{
	case $1 in
	list | ls)     args=""            opts="" ;;
	attach)        args="policy"      opts="--name --default-prio --slice --cgroup --max-pause --replace" ;;
	detach)        args=""            opts="" ;;
	status | show) args=""            opts="" ;;
	entry)         args="action cgroup..." opts="" ;;
	set-prio)      args="cgroup value" opts="" ;;
	get-prio)      args="cgroup"      opts="" ;;
	unset-prio)    args="cgroup"      opts="" ;;
	add-pid)       args="pid..."      opts="" ;;
	del-pid)       args="target..."   opts="" ;;
	get-pids)      args=""            opts="" ;;
	set-slice)     args="cgroup..."   opts="" ;;
	unset-slice)   args="cgroup..."   opts="" ;;
	get-slices)    args=""            opts="" ;;
	apply)         args="file"        opts="--dry-run --skip-missing" ;;
	events)        args=""            opts="--count --timeout" ;;
	explain)       args=""            opts="--cgroup --top" ;;
	help)          args="command"     opts="" ;;
	*) return 1 ;;
	esac
}

# The value an option takes, by kind (as above, plus dir); "" if none.
_oomctl_option_value()
{
	case $1 in
	--bpffs) optval=dir ;;
	--slice | --cgroup) optval=cgroup ;;
	--name | --default-prio | --max-pause | --count | --timeout | --top) optval=value ;;
	*) optval="" ;;
	esac
}

# attach's options that fit POLICY, as 'oomctl -j list' gives them (its
# "options", from the policy's description: attach refuses the others).
_oomctl_attach_opts()
{
	local json re
	json=$("${words[0]}" -j list 2>/dev/null)
	re='"name":"'"$1"'","[^]]*"options":\[([^]]*)\]'
	opts="--name --replace"
	[[ $json =~ $re ]] && opts+=" ${BASH_REMATCH[1]//[\",]/ }"
}

# The policies this oomctl has, from 'oomctl -j list' (one JSON line; a
# quote inside a string is escaped, so "name":"..." is only ever a key).
_oomctl_policies()
{
	"${words[0]}" -j list 2>/dev/null | grep -o '"name":"[^"]*"' | cut -d'"' -f4
}

# The pids the pid policy targets ('oomctl -j get-pids' needs root and the
# policy attached); else the running processes.
_oomctl_targets()
{
	local pids
	pids=$("${words[0]}" ${bpffs:+--bpffs "$bpffs"} -j get-pids 2>/dev/null |
		grep -o '"pid":[0-9]*' | cut -d: -f2)
	if [[ -n $pids ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$pids" -- "$cur")
	else
		_pids
	fi
}

# CGROUP: a directory under the cgroup2 mount, absolute or relative to it
# (as oomctl resolves it). Directories end in / and the word goes on.
_oomctl_cgroups()
{
	local root=${OOMCTL_CGROUP_ROOT:-} i

	[[ -n $root ]] ||
		root=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo 2>/dev/null)
	root=${root:-/sys/fs/cgroup}
	root=${root%/}
	if [[ $cur == "$root"/* ]]; then
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
	elif [[ $cur == /* ]]; then
		# On the way to the mount: offer the mount itself, nothing else.
		[[ $root/ == "$cur"* ]] && COMPREPLY=("$root")
	else
		mapfile -t COMPREPLY < <(compgen -d -- "$root/$cur")
		COMPREPLY=("${COMPREPLY[@]#"$root"/}")
	fi
	for i in "${!COMPREPLY[@]}"; do
		COMPREPLY[i]+=/
	done
	compopt -o nospace 2>/dev/null
}

_oomctl_bpf()
{
	local cur prev words cword split
	_init_completion -s || return

	local cmd="" first="" bpffs="" nargs=0 args opts optval i w
	local -a kinds

	# Walk the words before the cursor: options (and their values) before
	# the command, the command, then its options and arguments.
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		case $w in
		--bpffs=*) bpffs=${w#*=} ;;
		--*=*) ;;
		-?*)
			_oomctl_option_value "$w"
			[[ -n $optval ]] && ((i++))
			[[ $w == --bpffs ]] && bpffs=${words[i]}
			;;
		*)
			if [[ -z $cmd ]]; then
				cmd=$w
				continue
			fi
			((nargs++ == 0)) && first=$w
			;;
		esac
	done

	# The value of an option: --bpffs DIR, --slice CGROUP, ...
	_oomctl_option_value "$prev"
	case $optval in
	dir) _filedir -d; return ;;
	cgroup) _oomctl_cgroups; return ;;
	value) return ;;
	esac
	$split && return	# --unknown=...

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$_oomctl_common_opts -V --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$_oomctl_commands $_oomctl_aliases" -- "$cur")
		fi
		return
	fi

	_oomctl_command "$cmd" || return
	# 'oomctl COMMAND help' takes nothing more.
	[[ $cmd != help && $first == help ]] && return

	if [[ $cur == -* ]]; then
		[[ $cmd == attach && -n $first ]] && _oomctl_attach_opts "$first"
		[[ $cmd == help ]] || opts+=" $_oomctl_common_opts"
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return
	fi

	# The kind of the argument under the cursor: the next one in the
	# table, or the last one again if it repeats.
	read -ra kinds <<<"$args"
	if ((nargs < ${#kinds[@]})); then
		w=${kinds[nargs]}
	elif ((${#kinds[@]})) && [[ ${kinds[-1]} == *... ]]; then
		w=${kinds[-1]}
	else
		w=""
	fi
	case ${w%...} in
	policy) mapfile -t COMPREPLY < <(compgen -W "$(_oomctl_policies)" -- "$cur") ;;
	cgroup) _oomctl_cgroups ;;
	pid) _pids ;;
	target) _oomctl_targets ;;
	file) _filedir ;;
	command) mapfile -t COMPREPLY < <(compgen -W "$_oomctl_commands" -- "$cur") ;;
	action) mapfile -t COMPREPLY < <(compgen -W "add del get" -- "$cur") ;;
	esac
	if ((nargs == 0)) && [[ $cmd != help ]]; then
		mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -W help -- "$cur")
	fi
	return 0
}

# _oomctl_complete — what bash calls for `oomctl`: systemd-oomd's
# completion when the command word is (or, found on PATH, runs) systemd's
# oomctl, ours otherwise. Root's PATH has /usr/sbin before /usr/bin, so
# `oomctl` is ours there and systemd's for other users.
_oomctl_complete()
{
	local bin=${COMP_WORDS[0]} sd=${OOMCTL_SYSTEMD_ROOT-}
	local sd_comp=$sd/usr/share/bash-completion/completions/oomctl
	[[ $bin == */* ]] || bin=$(type -P -- "$bin")
	if [[ -n $bin && $bin -ef $sd/usr/bin/oomctl && -r $sd_comp ]]; then
		# Loaded once; it registers its own function for oomctl:
		# ours goes back in its place.
		if ! declare -F _oomctl >/dev/null; then
			# shellcheck source=/dev/null
			. "$sd_comp"
			complete -F _oomctl_complete oomctl
		fi
		_oomctl "$@"
		return
	fi
	_oomctl_bpf "$@"
}

complete -F _oomctl_complete oomctl
