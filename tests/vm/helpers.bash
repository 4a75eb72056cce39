# Helpers for the VM tests (sourced by tests/vm/*.bats, run inside the VM by
# tests/vm/run). Small functions returning 0/1, after the kernel's
# cgroup_util.c; every wait is on a condition with a deadline.

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
B=$TOP/build
HOG=$B/tests/hog
LOADER=$B/tests/oomtest-load
CGROOT=/sys/fs/cgroup
CG=$CGROOT/oomtest

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
		sleep 0.1
	done
}

# file_is FILE VALUE — does FILE hold VALUE? For wait_for: read at each try.
file_is() { [[ $(cat "$1" 2>/dev/null) == "$2" ]]; }

cg_write() { echo "$3" >"$1/$2"; }                         # CG FILE VALUE
cg_read_key() { awk -v k="$3" '$1 == k { print $2 }' "$1/$2"; } # CG FILE KEY
cg_key_at_least() { (($(cg_read_key "$1" "$2" "$3") >= $4)); }  # CG FILE KEY N

# A fresh test cgroup with the memory controller for its children.
cg_setup() {
	cg_teardown
	mkdir "$CG"
	cg_write "$CG" cgroup.subtree_control "+memory"
}

cg_teardown() {
	[[ -d $CG ]] || return 0
	echo 1 >"$CG/cgroup.kill"
	wait_for 30 grep -q '^populated 0' "$CG/cgroup.events"
	find "$CG" -depth -type d -exec rmdir {} \;
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

# A process that is gone or a zombie has been killed or has exited. What is
# not a pid (a variable left empty) is neither gone nor alive: status 2.
is_gone() {
	[[ $1 =~ ^[1-9][0-9]*$ ]] || { echo "is_gone: '$1' is not a pid" >&2; return 2; }
	[[ ! -e /proc/$1 ]] || [[ $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) == Z ]]
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
state() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || echo -; }
# test_state PID STATE — is the process in STATE (R, S, D, T, ...)? For
# wait_for.
test_state() { [[ $(state "$1") == "$2" ]]; }

# cpu_ticks PID — user + system clock ticks the process has used.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

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
	[[ $(state "$1") == [SD] ]] &&
		grep -q ' mem_cgroup_oom_pause_wait+' "/proc/$1/stack" 2>/dev/null
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
