#!/usr/bin/env bats
# One OOM, one kill (issue 20): a memcg OOM that one kill resolves kills
# once, with no policy and under each bundled policy. The scenario: a cgroup
# with memory.max 24M holds a 12M process (the holder); a second process
# (the grower) then grows to 16M. 12 + 16 > 24 and 16 < 24: one victim, the
# holder or the grower, is enough. A second kill is collateral: it happens
# when the charge that is still failing starts a new OOM while the first
# victim's pages are on their way back (kernel/patches 0008 closes that window).

load helpers
load oomctl-helpers

# 50 rounds (3-5 of them killed twice before the fix); 20 on the debug
# kernel, where each round is several times slower.
ROUNDS=50
[[ ! -e /proc/lockdep_stats ]] || ROUNDS=20

setup() {
	cg_setup
	kmsg_mark
}

teardown() {
	oomctl_teardown
}

# kill_rounds LABEL — ROUNDS rounds of the scenario under what is attached;
# fails if any round kills other than exactly once, naming the rounds.
kill_rounds() {
	local label=$1 r cg holder grower ready kills first bad=()
	local holder_first=0 grower_first=0
	for ((r = 1; r <= ROUNDS; r++)); do
		cg=$CG/r$r
		echo "oomtest: one-kill round $r" >/dev/kmsg
		mkdir "$cg"
		cg_write "$cg" memory.max 24M
		hog_ready "$cg" 12 "holder$r" --hold
		holder=$HOG_PID
		ready=$BATS_TEST_TMPDIR/grower$r.ready
		start_hog "$cg" 16 --hold --ready "$ready"
		grower=$HOG_PID
		wait_for 60 round_settled "$holder" "$grower" "$ready"
		kills=$(cg_read_key "$cg" memory.events oom_kill)
		if is_gone "$holder"; then first=holder; else first=grower; fi
		[[ $first == holder ]] && holder_first=$((holder_first + 1)) || grower_first=$((grower_first + 1))
		if ((kills != 1)); then
			bad+=("round $r: $kills kills ($(is_gone "$grower" && echo "grower dead" || echo "grower alive"))")
			# The kills and the OOM reports' memcg usage, from the log.
			((${#bad[@]} > 3)) || dmesg | sed -n "/oomtest: one-kill round $r\$/,\$p" |
				grep -E 'Killed process|memory: usage|^\[[ 0-9.]*\] anon [0-9]' >&2 || true
		fi
		echo 1 >"$cg/cgroup.kill"
		wait_for 30 grep -q '^populated 0' "$cg/cgroup.events"
		reap "$holder" 10
		reap "$grower" 10
		rmdir "$cg"
	done
	echo "# $label: $ROUNDS rounds, $((ROUNDS - ${#bad[@]})) with one kill; the holder killed in $holder_first, the grower alone in $grower_first; collateral in ${#bad[@]}" >&3
	((${#bad[@]} == 0)) || {
		printf '%s\n' "${bad[@]}" >&2
		return 1
	}
}

@test "no policy: a memcg OOM that one kill resolves kills once ($ROUNDS rounds)" {
	kill_rounds "no policy"
}

@test "cgprio: a memcg OOM that one kill resolves kills once ($ROUNDS rounds)" {
	"$OOMCTL" attach cgprio >/dev/null
	kill_rounds cgprio
}

@test "pid: a memcg OOM that one kill resolves kills once ($ROUNDS rounds)" {
	"$OOMCTL" attach pid >/dev/null
	kill_rounds pid
}

@test "rss-slice: a memcg OOM that one kill resolves kills once ($ROUNDS rounds)" {
	"$OOMCTL" attach rss-slice --slice "$CG" >/dev/null
	kill_rounds rss-slice
}

@test "abort-all --max-pause 1: a paused OOM that one kill resolves kills once ($ROUNDS rounds)" {
	"$OOMCTL" attach abort-all --cgroup "$CG" --max-pause 1 >/dev/null
	kill_rounds "abort-all --max-pause 1"
}
