# SIGKILL oomctl in the middle of attach, attach --replace and detach, many
# times, at random points (sourced by reliability-kill.bats, a few rounds
# in make check, and stress-kill.bats, 50 rounds each). After every kill
# either the old or the new state must be whole: `status` shows a complete
# policy (all of its links pinned and attached, exactly one program on the
# hook) or none (nothing on the hook, no link of ours anywhere).

# random_kill MAX_MS CMD... — start oomctl CMD, SIGKILL it after a random
# 0 to MAX_MS milliseconds (attach takes about 1 s under TCG, detach less).
random_kill() {
	local ms=$((RANDOM % $1))
	shift
	"$OOMCTL" "$@" >/dev/null 2>&1 &
	local pid=$!
	sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# whole_state — what status says after the kill, checked against the
# kernel: prints the attached policy, or "none".
whole_state() {
	local s
	s=$("$OOMCTL" -j status)
	# status released what the killed run left: no staging or detaching
	# directory remains.
	[ -z "$(find "$PINS" -mindepth 1 -maxdepth 1 ! -name policy 2>/dev/null)" ]
	[ "$(jq '.foreign | length' <<<"$s")" = 0 ]
	if [ "$(jq -r .attached <<<"$s")" = true ]; then
		[ "$(eval_links)" = 1 ]
		[ "$(bpftool -j link show | jq length)" = "$(jq '.links | length' <<<"$s")" ]
		jq -r .policy <<<"$s"
	else
		[ "$(bpftool -j link show | jq length)" = 0 ]
		[ ! -e "$PINS/policy" ]
		echo none
	fi
}

# kill_rounds KIND N — N rounds of KIND (attach, replace, detach).
kill_rounds() {
	local kind=$1 n=$2 base outcome
	declare -A seen=()
	base=$(baseline_objects)
	for ((i = 0; i < n; i++)); do
		case $kind in
		attach)
			random_kill 1500 attach cgprio
			outcome=$(whole_state)
			[[ $outcome == none || $outcome == cgprio ]]
			;;
		replace)
			"$OOMCTL" attach pid >/dev/null
			random_kill 1500 attach cgprio --replace
			outcome=$(whole_state)
			[[ $outcome == pid || $outcome == cgprio ]]
			;;
		detach)
			"$OOMCTL" attach cgprio >/dev/null
			random_kill 700 detach
			outcome=$(whole_state)
			[[ $outcome == none || $outcome == cgprio ]]
			;;
		esac
		seen[$outcome]=$((${seen[$outcome]:-0} + 1))
		if [[ $outcome != none ]]; then
			"$OOMCTL" detach >/dev/null
		fi
		wait_for 10 objects_are "$base"
	done
	local summary=
	for k in "${!seen[@]}"; do summary+=" $k ${seen[$k]}"; done
	echo "# SIGKILL during $kind, $n rounds: whole every time; left:$summary" >&3
}
