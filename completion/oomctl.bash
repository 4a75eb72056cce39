# bash completion for oomctl(8)                          -*- shell-script -*-
#
# Commands, their options, policy names, cgroup directories (absolute, or
# relative to the cgroup2 mount), pids and files. Needs only bash; no
# bash-completion helpers. OOMCTL_CGROUP_ROOT overrides the cgroup2 mount
# (for tests).

# What each command's positional arguments are: a space-separated list of
# kinds, the last one repeating if it ends in "...".
_oomctl_args() {
	case $1 in
	attach) echo "policy" ;;
	set-prio) echo "cgroup number" ;;
	get-prio | unset-prio) echo "cgroup" ;;
	set-slice | unset-slice) echo "cgroup..." ;;
	add-pid) echo "pid..." ;;
	del-pid) echo "target..." ;;
	apply) echo "file" ;;
	help) echo "command" ;;
	*) echo "" ;;
	esac
}

# Each command's own options; those taking a value are listed in
# _oomctl_opt_kind.
_oomctl_cmd_opts() {
	case $1 in
	attach) echo "--name --default-prio --slice --cgroup --replace" ;;
	apply) echo "--dry-run --skip-missing" ;;
	events) echo "--count --timeout" ;;
	explain) echo "--cgroup --top" ;;
	esac
}

_oomctl_opt_kind() {
	case $1 in
	--slice | --cgroup) echo cgroup ;;
	--bpffs) echo dir ;;
	--name | --default-prio | --count | --timeout | --top) echo value ;;
	*) echo "" ;;
	esac
}

_OOMCTL_COMMON_OPTS="-j --json -p --pretty -d --debug -v --verbose --bpffs -h --help"
_OOMCTL_COMMANDS="list ls attach detach status show set-prio get-prio unset-prio
add-pid del-pid get-pids set-slice unset-slice get-slices apply events explain help"

_oomctl_cgroup_root() {
	local root=${OOMCTL_CGROUP_ROOT:-}
	[[ -n $root ]] || root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts 2>/dev/null)
	echo "${root:-/sys/fs/cgroup}"
}

# Directories under the cgroup root, with a / to go on: /abs/paths as
# typed, else relative to the root.
_oomctl_cgroups() {
	local cur=$1 root d
	root=$(_oomctl_cgroup_root)
	if [[ $cur == /* ]]; then
		compgen -d -- "$cur" | sed 's|$|/|'
		return
	fi
	while IFS= read -r d; do
		echo "${d#"$root"/}/"
	done < <(compgen -d -- "$root/$cur")
}

_oomctl_pids() {
	local p
	for p in /proc/[0-9]*; do echo "${p#/proc/}"; done
}

# The policies this oomctl has ('oomctl -j list' is one line of objects).
_oomctl_policies() {
	local names
	names=$(oomctl -j list 2>/dev/null | grep -o '"name":"[^"]*"' | cut -d'"' -f4)
	echo "${names:-cgprio pid rss-slice abort-all}"
}

_oomctl() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd="" i w nargs=0 kinds kind opts
	COMPREPLY=()

	# The command is the first word not an option or an option's value.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ -z $cmd ]]; then
			case $w in
			--bpffs) ((i++)) ;;
			-*) ;;
			*) cmd=$w ;;
			esac
			continue
		fi
		if [[ $w == -* ]]; then
			[[ -n $(_oomctl_opt_kind "$w") ]] && ((i++))
			continue
		fi
		((nargs++))
	done

	# The value of an option.
	case $(_oomctl_opt_kind "$prev") in
	cgroup) mapfile -t COMPREPLY < <(_oomctl_cgroups "$cur"); compopt -o nospace 2>/dev/null; return ;;
	dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
	value) return ;;
	esac

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$_OOMCTL_COMMON_OPTS -V --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$_OOMCTL_COMMANDS" -- "$cur")
		fi
		return
	fi
	case $cmd in ls) cmd=list ;; show) cmd=status ;; esac

	if [[ $cur == -* ]]; then
		opts="$(_oomctl_cmd_opts "$cmd") $_OOMCTL_COMMON_OPTS"
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return
	fi

	# 'oomctl CMD help' as the first argument, like bpftool.
	read -ra kinds <<<"$(_oomctl_args "$cmd")"
	if ((nargs < ${#kinds[@]})); then
		kind=${kinds[nargs]}
	elif ((${#kinds[@]})) && [[ ${kinds[-1]} == *... ]]; then
		kind=${kinds[-1]}
	else
		kind=""
	fi
	kind=${kind%...}
	case $kind in
	policy) mapfile -t COMPREPLY < <(compgen -W "$(_oomctl_policies)" -- "$cur") ;;
	command) mapfile -t COMPREPLY < <(compgen -W "${_OOMCTL_COMMANDS/ help/}" -- "$cur") ;;
	cgroup) mapfile -t COMPREPLY < <(_oomctl_cgroups "$cur"); compopt -o nospace 2>/dev/null ;;
	pid) mapfile -t COMPREPLY < <(compgen -W "$(_oomctl_pids)" -- "$cur") ;;
	target) mapfile -t COMPREPLY < <(compgen -W "$(oomctl -j get-pids 2>/dev/null | grep -o '"pid":[0-9]*' | cut -d: -f2)" -- "$cur") ;;
	file) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	esac
	# 'help' is offered as a command's first argument too.
	if ((nargs == 0)) && [[ $cmd != help && help == "$cur"* ]]; then
		COMPREPLY+=(help)
	fi
	return 0
}

complete -F _oomctl oomctl
