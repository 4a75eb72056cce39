# Helpers for the VM tests (sourced by tests/vm/*.bats, run inside the VM by
# tests/vm/run). Small functions returning 0/1, after the kernel's
# cgroup_util.c; every wait is on a condition with a deadline.

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
B=$TOP/build
HOG=$B/tests/hog
LOADER=$B/tests/oomtest-load
CGROOT=/sys/fs/cgroup
CG=$CGROOT/oomtest

# Under TCG every exec costs the guest 15-70 ms (bash, awk, sleep: measured
# in the 1G guest, with tests/vm/run's norandmaps and init's LANG=C; 40-200 ms
# without), so the helpers that tests call in loops and polls use bash
# builtins only: read, not awk or cat; nap, not sleep. JSON is read with
# gojq: jq 1.6 compiles its builtins at each start, 200 ms here, gojq 40 ms.

# nap SECONDS — sleep without a fork: a read that times out on a FIFO that
# nobody writes to, opened once per test process (and per subshell).
nap() {
	if [[ -z ${NAP_FD:-} || ${NAP_PID:-} != "$BASHPID" ]]; then
		local fifo=${BATS_TEST_TMPDIR:-/tmp}/nap.$BASHPID
		mkfifo "$fifo" && exec {NAP_FD}<>"$fifo" && rm -f "$fifo" || return 1
		NAP_PID=$BASHPID
	fi
	read -r -t "$1" -u "$NAP_FD" _ || true
}

# wait_for SECONDS CMD... — run CMD every 0.1 s until it succeeds, or fail
# after SECONDS.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		if ((SECONDS >= deadline)); then
			echo "timed out waiting for: $*" >&2
			return 1
		fi
		nap 0.1
	done
}

# file_is FILE VALUE — does FILE hold VALUE? For wait_for: read at each try.
file_is() {
	local v=''
	IFS= read -r -d '' v 2>/dev/null <"$1" || true
	while [[ $v == *$'\n' ]]; do v=${v%$'\n'}; done
	[[ $v == "$2" ]]
}

cg_write() { echo "$3" >"$1/$2"; } # CG FILE VALUE
# cg_read_key CG FILE KEY — the value of KEY in a flat keyed file
# (memory.events, memory.stat, cgroup.events).
cg_read_key() {
	local KEY_VALUE
	key_value "$1/$2" "$3" || return 0
	echo "$KEY_VALUE"
}
# key_value FILE KEY — KEY's value in KEY_VALUE; 1 if FILE has no KEY. No
# subshell: for the polls (cg_empty).
key_value() {
	local k v rest
	while read -r k v rest; do
		[[ $k == "$2" ]] && { KEY_VALUE=$v; return 0; }
	done <"$1"
	return 1
}
cg_key_at_least() { (($(cg_read_key "$1" "$2" "$3") >= $4)); } # CG FILE KEY N
# cg_empty CG — no process left in CG or below it (cgroup.events'
# populated 0). For wait_for: no subshell, no exec.
cg_empty() {
	local KEY_VALUE
	key_value "$1/cgroup.events" populated && [[ $KEY_VALUE == 0 ]]
}

# A fresh test cgroup with the memory controller for its children.
cg_setup() {
	cg_teardown
	mkdir "$CG"
	cg_write "$CG" cgroup.subtree_control "+memory"
}

cg_teardown() {
	[[ -d $CG ]] || return 0
	echo 1 >"$CG/cgroup.kill"
	wait_for 30 cg_empty "$CG"
	find "$CG" -type d -delete	# rmdir(2) each, children first: one exec
}

# Mark the kernel log so that kmsg_since_mark shows this test's lines only
# (numbered across the whole run: BATS_TEST_NUMBER restarts in every file).
kmsg_mark() { echo "oomtest: begin $BATS_SUITE_TEST_NUMBER" >/dev/kmsg; }
kmsg_since_mark() { dmesg | sed -n "/oomtest: begin $BATS_SUITE_TEST_NUMBER\$/,\$p"; }

# start_hog CGROUP MB [hog options] — run tests/tools/hog in CGROUP; its pid
# is left in HOG_PID.
start_hog() {
	local cg=$1 mb=$2
	shift 2
	(echo "$BASHPID" >"$cg/cgroup.procs" && exec "$HOG" "$@" "$mb") \
		>>"$BATS_TEST_TMPDIR/hog.log" 2>&1 3>&- &
	# shellcheck disable=SC2034 # the result, read by the bats files
	HOG_PID=$!
}

# proc_stat PID — the fields of /proc/PID/stat after "PID (comm) ", in the
# array STAT (STAT[0] is the state, field 3); 1 if the process is gone.
proc_stat() {
	local line
	read -r line 2>/dev/null <"/proc/$1/stat" || return 1
	read -r -a STAT <<<"${line##*) }"
}

# A process that is gone or a zombie has been killed or has exited. What is
# not a pid (a variable left empty) is neither gone nor alive: status 2.
is_gone() {
	[[ $1 =~ ^[1-9][0-9]*$ ]] || { echo "is_gone: '$1' is not a pid" >&2; return 2; }
	local STAT
	proc_stat "$1" || return 0
	[[ ${STAT[0]} == Z ]]
}
is_alive() {
	local rc=0
	is_gone "$1" || rc=$?
	((rc == 1))
}

# round_settled HOLDER GROWER READY — a one-kill round is over (one-kill*.bats):
# the grower was killed, or it has all it asked for (READY exists) and the
# holder is gone. (The grower ready beside a live holder cannot fit.)
round_settled() {
	is_gone "$2" || { [[ -e $3 ]] && is_gone "$1"; }
}

# state PID — the process's state letter (R, S, D, Z, ...), or - if gone.
state() {
	local STAT
	if proc_stat "$1"; then echo "${STAT[0]}"; else echo -; fi
}
# test_state PID STATE — is the process in STATE (R, S, D, T, ...)? For
# wait_for.
test_state() { [[ $(state "$1") == "$2" ]]; }

# cpu_ticks PID — user + system clock ticks the process has used (fields
# 14 and 15).
cpu_ticks() {
	local STAT
	proc_stat "$1" || { echo "cpu_ticks: no process $1" >&2; return 1; }
	echo $((STAT[11] + STAT[12]))
}

# crowd_ready N [SLEEPERS-OPTION...] — N sleeping processes sharing one
# small mm (tests/tools/sleepers) in $CG/crowd, ready within 300 s; fails
# at once if sleepers gives up (it says why in sleepers.log). The kernel
# sizes threads-max to its memory (about 2,000 in a 256M VM): it is raised
# to make room for N, as an operator would, and common_teardown puts it
# back.
crowd_ready() {
	local n=$1 max
	shift
	max=$(cat /proc/sys/kernel/threads-max)
	if ((max < n + 1000)); then
		THREADS_MAX=$max
		echo $((n + 1000)) >/proc/sys/kernel/threads-max
	fi
	mkdir "$CG/crowd"
	(echo "$BASHPID" >"$CG/crowd/cgroup.procs" &&
		exec "$B/tests/sleepers" "$@" --ready "$BATS_TEST_TMPDIR/crowd.ready" "$n") \
		>>"$BATS_TEST_TMPDIR/sleepers.log" 2>&1 3>&- &
	CROWD_PID=$!
	wait_for 300 crowd_settled
	[[ -e $BATS_TEST_TMPDIR/crowd.ready ]] || {
		echo "sleepers gave up: $(cat "$BATS_TEST_TMPDIR/sleepers.log")" >&2
		return 1
	}
}

# crowd_settled — crowd_ready's condition: ready, or sleepers has exited.
crowd_settled() {
	[[ -e $BATS_TEST_TMPDIR/crowd.ready ]] || is_gone "$CROWD_PID"
}

# is_paused PID — asleep in a paused memcg OOM's wait: TASK_KILLABLE
# (state D, as cgroup v1's OOM wait) at the end of a page fault, where it
# holds no lock. Its kernel stack says so (wchan does not: the test
# kernel's unwinder guesses, and names a timer function).
is_paused() {
	local STAT line
	proc_stat "$1" && [[ ${STAT[0]} == [SD] ]] || return 1
	while read -r line; do
		[[ $line == *" mem_cgroup_oom_pause_wait+"* ]] && return 0
	done 2>/dev/null <"/proc/$1/stack"
	return 1
}

# reap PID [SECONDS] — wait, bounded, for a background child of this shell
# to end, and leave its exit status in REAPED (137: killed by SIGKILL).
# Not for $(...): a subshell cannot wait for its parent's children.
reap() {
	wait_for "${2:-120}" is_gone "$1" || return 1
	local rc=0
	wait "$1" || rc=$?
	# shellcheck disable=SC2034 # the result, read by the bats files
	REAPED=$rc
}

# load_policy [oomtest-load options] — attach tests/bpf/oom_test.bpf.c and
# wait until it is attached (or the loader gave up).
load_policy() {
	"$LOADER" "$@" >"$BATS_TEST_TMPDIR/loader.out" 2>&1 3>&- &
	LOADER_PID=$!
	wait_for 60 loader_settled
	grep -qx attached "$BATS_TEST_TMPDIR/loader.out" || {
		cat "$BATS_TEST_TMPDIR/loader.out" >&2
		unset LOADER_PID
		return 1
	}
}
loader_settled() { grep -qx attached "$BATS_TEST_TMPDIR/loader.out" || is_gone "$LOADER_PID"; }

# unload_policy — detach; the program's counters are left in STATS, read
# them with stat_of NAME.
unload_policy() {
	kill -TERM "$LOADER_PID"
	wait "$LOADER_PID"
	STATS=$(tail -n 1 "$BATS_TEST_TMPDIR/loader.out")
	unset LOADER_PID
}
stat_of() { tr ' ' '\n' <<<"$STATS" | sed -n "s/^$1=//p"; }

common_teardown() {
	[[ -n ${LOADER_PID:-} ]] && kill -TERM "$LOADER_PID" 2>/dev/null && wait "$LOADER_PID"
	local rc=0
	cg_teardown || rc=$?
	if [[ -n ${THREADS_MAX:-} ]]; then
		echo "$THREADS_MAX" >/proc/sys/kernel/threads-max || rc=1
	fi
	return "$rc"
}
