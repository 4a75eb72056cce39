# Helpers for the oomctl VM tests (tests/vm/oomctl-*.bats), on top of
# helpers.bash: run oomctl, read its JSON, and clean up after each test.

OOMCTL=$B/oomctl
PINS=/sys/fs/bpf/oomctl
# shellcheck source=bpf-objects.bash
. "$TOP/tests/vm/bpf-objects.bash"

# oomctl_json FILTER [oomctl args...] — run 'oomctl -j ARGS' and print the jq
# FILTER of its output.
oomctl_json() {
	local filter=$1
	shift
	"$OOMCTL" -j "$@" | gojq -r "$filter"
}

# status_field FILTER — a field of 'oomctl status -j'.
status_field() { oomctl_json "$1" status; }

# status_is FILTER VALUE — does status show VALUE for FILTER? For wait_for (the
# kill is recorded before the victim's memory is freed).
status_is() { [[ $(status_field "$1") == "$2" ]]; }

# overflow [CGROUP] — a real memcg OOM: $CG's limit set 2M above what it
# holds, and a 4M charger started in CGROUP (default $CG/t, a cgroup each
# test makes sure its policy never picks); its pid in CHARGER. One kill of
# any hog lets the charger finish. (Lowering memory.max instead makes the
# writer retry the OOM at once, and on 2 CPUs it may kill again before the
# first victim's pages are uncharged.)
overflow() {
	cg_write "$CG" memory.max $(($(cat "$CG/memory.current") + 2 * 1024 * 1024))
	start_hog "${1:-$CG/t}" 4
	# shellcheck disable=SC2034 # read by the bats files
	CHARGER=$HOG_PID
}

# takers OPTION — the policies whose attach takes OPTION, as attach's
# messages name them ("abort-all and protect"): from oomctl -j list.
takers() { "$OOMCTL" -j list | gojq -r --arg o "$1" '[.[] | select(.options | index($o)) | .name] | join(" and ")'; }

# bpf_gone KIND ID — bpftool finds no KIND (link, prog, map) of that id:
# it fails, saying so (not for another reason).
bpf_gone() {
	local out rc=0
	out=$(bpftool "$1" show id "$2" 2>&1) || rc=$?
	echo "bpftool $1 show id $2: exit $rc: $out"
	((rc != 0)) && [[ $out == "Error: "*"$2"*": No such file or directory" ]]
}

# bpf_named KIND REGEX — how many KINDs (prog, map) bpftool lists whose name
# matches REGEX.
bpf_named() {
	bpftool -j "$1" show >"$BATS_TEST_TMPDIR/bpf_named.json"
	gojq --arg re "$2" '[.[] | select(.name // "" | test($re))] | length' "$BATS_TEST_TMPDIR/bpf_named.json"
}

# Two children of $CG, in scan order a then b, under a 16M limit.
two_children() {
	mkdir "$CG/a" "$CG/b"
	cg_write "$CG" memory.max 16M
}

# hog_ready CGROUP MB NAME [hog options] — start a holding hog in CGROUP and
# wait until all of its memory is resident; its pid in HOG_PID.
hog_ready() {
	local cg=$1 mb=$2 name=$3
	shift 3
	start_hog "$cg" "$mb" --hold --ready "$BATS_TEST_TMPDIR/$name.ready" "$@"
	wait_for 120 test -e "$BATS_TEST_TMPDIR/$name.ready"
}

oomctl_teardown() {
	if [[ -d $PINS/policy ]]; then
		"$OOMCTL" detach >/dev/null 2>&1 || rm -rf "$PINS/policy"
	fi
	rmdir "$PINS" 2>/dev/null || true
	common_teardown
}

# status's warning threshold, from the header the policies share (read
# with bash, not awk: this runs as every test loads, see helpers.bash).
OOMCTL_FAIL_WARN=
while read -r define name value rest; do
	if [[ $define == "#define" && $name == OOMCTL_FAIL_WARN ]]; then
		# shellcheck disable=SC2034 # read by the bats files
		OOMCTL_FAIL_WARN=$value
	fi
done <"$TOP/bpf-policies/oomctl.h"
unset define name value rest
