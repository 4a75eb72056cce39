#!/usr/bin/env bats
# Concurrency, privilege and stale state (tests/vm/run --mem 1G): eight
# shells editing one map at once, a user without privileges, thousands of
# cgroups created and removed, a listed pid that exits and is reused.
# make check-stress (OOMCTL_STRESS=1) runs the concurrency test at full size,
# 500 commands a shell; make check runs it smaller, to stay short.

load helpers
load oomctl-helpers
bats_require_minimum_version 1.5.0

# Rounds per shell in the concurrency test, 4 commands each, and one more.
CONC_ROUNDS=$((${OOMCTL_STRESS:-0} ? 125 : 6))
# Cgroups created, given a priority and removed, in chunks.
STALE_CGROUPS=${STALE_CGROUPS:-10000}
STALE_CHUNK=1000

setup() {
	cg_setup
	kmsg_mark
}

teardown() {
	[[ -n ${PID_MAX:-} ]] && echo "$PID_MAX" >/proc/sys/kernel/pid_max
	restore_modes
	oomctl_teardown
}

# open_path DIR... — make each DIR searchable by anyone for a moment (until
# restore_modes), so that what refuses a user is what lies beyond, not a
# directory on the way.
MODES=()
open_path() {
	local d
	for d; do
		MODES+=("$(stat -c %a "$d") $d")
		chmod go+x "$d"
	done
}
restore_modes() {
	local m
	for m in "${MODES[@]}"; do chmod "${m%% *}" "${m#* }"; done
	MODES=()
}

# prios — the cgprio map as "cgroup-id prio" lines, sorted.
prios() {
	bpftool -j map dump pinned "$PINS/policy/map_cgprio_prios" |
		gojq -r '.[] | "\(.formatted.key) \(.formatted.value)"' | sort -n
}
prio_count() { prios | wc -l; }
cgid() { stat -c %i "$1"; }

# edit J ARGS... — one command of shell J; a failure is logged with its
# message in $BATS_TEST_TMPDIR/editor$J.err. The output in OUT.
edit() {
	local j=$1
	shift
	OUT=$("$OOMCTL" "$@" 2>&1) || echo "oomctl $* => $OUT" >>"$BATS_TEST_TMPDIR/editor$j.err"
}

# editor J ROUNDS — one of the concurrent shells: each round sets and unsets
# its own cgroup d$J and sets the shared cgroup to J, checking every exit
# status and that the shared priority read back is one of the shells'.
# Ends with d$J at J.
editor() {
	local j=$1 rounds=$2
	for ((r = 1; r <= rounds; r++)); do
		edit "$j" set-prio "$CG/d$j" "$((100 + r))"
		edit "$j" set-prio "$CG/shared" "$j"
		edit "$j" unset-prio "$CG/d$j"
		edit "$j" get-prio "$CG/shared"
		[[ $OUT == [1-8] ]] || echo "get-prio $CG/shared => '$OUT'" >>"$BATS_TEST_TMPDIR/editor$j.err"
	done
	edit "$j" set-prio "$CG/d$j" "$j"
}

@test "eight shells editing cgprio at once: every command succeeds, the map ends as expected" {
	"$OOMCTL" attach cgprio
	mkdir "$CG/shared"
	for j in 1 2 3 4 5 6 7 8; do mkdir "$CG/d$j"; done
	t0=$SECONDS
	for j in 1 2 3 4 5 6 7 8; do
		editor "$j" "$CONC_ROUNDS" &
	done
	wait
	echo "# concurrency: 8 shells x $((4 * CONC_ROUNDS + 1)) commands in $((SECONDS - t0)) s" >&3
	cat "$BATS_TEST_TMPDIR"/editor*.err 2>/dev/null || true
	[ -z "$(cat "$BATS_TEST_TMPDIR"/editor*.err 2>/dev/null)" ]
	# d1..d8 end at 1..8, shared at whichever shell wrote last: 9 entries.
	prios >"$BATS_TEST_TMPDIR/prios"
	cat "$BATS_TEST_TMPDIR/prios"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/prios")" = 9 ]
	for j in 1 2 3 4 5 6 7 8; do
		grep -qx "$(cgid "$CG/d$j") $j" "$BATS_TEST_TMPDIR/prios"
	done
	shared=$(awk -v id="$(cgid "$CG/shared")" '$1 == id { print $2 }' "$BATS_TEST_TMPDIR/prios")
	[[ $shared =~ ^[1-8]$ ]]
	[ "$("$OOMCTL" get-prio "$CG/shared")" = "$shared" ]
}

@test "as nobody: attach, detach, apply, map edits and reading the pins are refused with exit 1" {
	"$OOMCTL" attach cgprio
	"$OOMCTL" set-prio "$CG" 7
	before=$("$OOMCTL" -j status; prios; find /sys/fs/bpf -printf '%p %m %u\n' | sort)
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
	# A config the user nobody can read (bats' own directory is root's).
	conf=$(mktemp /tmp/pid.conf.XXXXXX)
	printf 'policy pid\n' >"$conf"
	chmod 0644 "$conf"
	for args in "attach pid" "attach --replace pid" detach "set-prio $CG 1" \
		"unset-prio $CG" "get-prio $CG" "add-pid 1" "get-pids" status \
		"apply $conf" "apply --dry-run $conf"; do
		run nobody "$OOMCTL" $args
		echo "oomctl $args as nobody => exit $status: $output"
		[ "$status" -eq 1 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ $output == *"needs root"* ]]
	done
	rm "$conf"
	# Around oomctl too: the pin directory, by its own mode (bpffs open to
	# anyone for the test), can be neither listed nor searched nor written.
	open_path /sys/fs/bpf
	run -0 nobody test -d "$PINS"
	for mode in r w x; do
		run -1 nobody test -"$mode" "$PINS"
	done
	run -2 nobody ls "$PINS"
	[ "$output" = "ls: cannot open directory '$PINS': Permission denied" ]
	# Nor can the pins be read or written, by their own mode: with the
	# directories on the way open to anyone, each is there for nobody to
	# see, and refused.
	open_path "$PINS" "$PINS/policy"
	pins=("$PINS"/policy/*)
	[ "${#pins[@]}" -ge 10 ]
	for pin in "${pins[@]}"; do
		run -0 nobody test -e "$pin"
		run -1 nobody test -r "$pin"
		run -1 nobody test -w "$pin"
	done
	map=$PINS/policy/map_cgprio_prios
	run -1 nobody cat "$map"
	[ "$output" = "cat: $map: Permission denied" ]
	run -255 nobody bpftool map dump pinned "$map"
	[[ $output == "Error: bpf obj get ("*"): Permission denied" ]]
	run -255 nobody bpftool map update pinned "$map" key 1 0 0 0 0 0 0 0 value 1 0 0 0
	[[ $output == "Error: bpf obj get ("*"): Permission denied" ]]
	restore_modes
	[ "$before" = "$("$OOMCTL" -j status; prios; find /sys/fs/bpf -printf '%p %m %u\n' | sort)" ]
}

# stale_chunk N — create N cgroups, give each a priority in one bpftool
# batch, check the map holds them, remove them, check none is left.
stale_chunk() {
	local n=$1 base=$2 dir=$CG/stale
	mkdir "$dir"
	(cd "$dir" && mkdir $(seq -f 'c%g' 1 "$n"))
	# Keys are cgroup ids (inode numbers), little-endian u64; values u32.
	(cd "$dir" && stat -c %i $(seq -f 'c%g' 1 "$n")) |
		awk -v pin="$PINS/policy/map_cgprio_prios" '{
			k = $1; key = ""
			for (i = 0; i < 8; i++) { key = key " " (k % 256); k = int(k / 256) }
			printf "map update pinned %s key%s value %d 0 0 0\n", pin, key, 1 + NR % 250
		}' >"$BATS_TEST_TMPDIR/batch"
	bpftool batch file "$BATS_TEST_TMPDIR/batch" >/dev/null
	[ "$(prio_count)" = $((base + n)) ]
	(cd "$dir" && rmdir $(seq -f 'c%g' 1 "$n"))
	rmdir "$dir"
	# cgroup_rmdir fires in rmdir() itself: nothing to wait for.
	[ "$(prio_count)" = "$base" ]
}

@test "10,000 cgroups given a priority and removed: no entry lingers, the map never fills, OOMs still pick right" {
	"$OOMCTL" attach cgprio --default-prio 100
	two_children
	"$OOMCTL" set-prio "$CG/a" 10
	"$OOMCTL" set-prio "$CG/b" 50
	base=$(prio_count)
	[ "$base" = 2 ]
	t0=$SECONDS
	for ((done = 0; done < STALE_CGROUPS; done += STALE_CHUNK)); do
		stale_chunk "$STALE_CHUNK" "$base"
	done
	echo "# stale state: $STALE_CGROUPS cgroups in chunks of $STALE_CHUNK, map back to $base entries each time ($((SECONDS - t0)) s)" >&3
	[ "$(prio_count)" = 2 ]
	# The two entries left are still the right ones, and OOMs use them:
	# the priority-10 hog dies, though the priority-50 one is bigger.
	hog_ready "$CG/b" 8 big
	big=$HOG_PID
	start_hog "$CG/a" 12 --hold
	small=$HOG_PID
	reap "$small" 120
	[ "$REAPED" = 137 ]
	is_alive "$big"
	[ "$(status_field .last_victim.pid)" = "$small" ]
}

# next_pid_is PID — after $LAST was handed out, is PID the next one? The
# next is the lowest free pid above LAST, wrapping from pid_max to 300
# (pids below are reserved): it is PID when every pid on the way is taken.
next_pid_is() {
	local p=$LAST max
	# Builtins only: a fork here would take a pid itself.
	read -r max </proc/sys/kernel/pid_max
	for ((n = 0; n < 50; n++)); do
		p=$((p + 1 < max ? p + 1 : 300))
		((p == $1)) && return 0
		[[ -e /proc/$p ]] || return 1
	done
	return 1
}

# fork_until PID — fork short-lived subshells until the next pid handed out
# would be PID (pids are handed out in increasing order, the lowest free
# one after the last, and wrap at pid_max), within 5,000 forks.
fork_until() {
	for ((i = 0; i < 5000; i++)); do
		(:) &
		LAST=$!
		wait "$LAST"
		next_pid_is "$1" && return 0
	done
	return 1
}

@test "a listed pid that exits is forgotten; a new process reusing the pid is not a target" {
	"$OOMCTL" attach pid
	two_children
	# A small pid space, so that pids come round again quickly.
	PID_MAX=$(cat /proc/sys/kernel/pid_max)
	echo 1000 >/proc/sys/kernel/pid_max
	hog_ready "$CG/a" 2 first
	reused=$HOG_PID
	"$OOMCTL" add-pid "$reused"
	[ "$(oomctl_json '.[0].pid' get-pids)" = "$reused" ]
	kill -KILL "$reused"
	reap "$reused" 30
	# The entry went with the process, before anyone could reuse the pid.
	[ "$(oomctl_json length get-pids)" = 0 ]
	# Come round to the same pid, and give it to a new process.
	for attempt in 1 2 3; do
		fork_until "$reused"
		hog_ready "$CG/a" 2 "second$attempt"
		[[ $HOG_PID == "$reused" ]] && break
		kill -KILL "$HOG_PID"
		reap "$HOG_PID" 30
	done
	[ "$HOG_PID" = "$reused" ]
	[ "$(oomctl_json length get-pids)" = 0 ]
	# An OOM: the new process with the old pid is not a target, the kernel
	# heuristic kills the bigger hog.
	start_hog "$CG/b" 20 --hold
	grower=$HOG_PID
	reap "$grower" 120
	[ "$REAPED" = 137 ]
	is_alive "$reused"
	[ "$(status_field .counters.selections)" = 0 ]
}
