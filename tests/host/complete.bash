# completions LINE — what bash completes for LINE typed with the cursor at
# its end: COMPREPLY, sorted, one per line. It calls the function that
# `complete -p` names for the command, after bash-completion's on-demand
# loader when there is none yet, as bash does. LINE is cut into COMP_WORDS
# as readline does: at blanks, and around '=' (in COMP_WORDBREAKS); a
# trailing blank starts a new, empty word. Sourced by the bats files that
# test the completion (completion.bats, deb.bats).
completions() {
	local line=$1 w spec
	local -a split=()
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	for w in "${COMP_WORDS[@]}"; do
		if [[ $w == -*=* ]]; then
			split+=("${w%%=*}" "=")
			[[ -n ${w#*=} ]] && split+=("${w#*=}")
		else
			split+=("$w")
		fi
	done
	COMP_WORDS=("${split[@]}")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	spec=$(complete -p -- "${COMP_WORDS[0]}" 2>/dev/null || complete -p -- "${COMP_WORDS[0]##*/}" 2>/dev/null) ||
		{ _completion_loader "${COMP_WORDS[0]}"; spec=$(complete -p -- "${COMP_WORDS[0]##*/}"); } || return 1
	spec=${spec#*-F }
	"${spec%% *}" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | sort
	return 0
}
