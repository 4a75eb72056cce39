#!/usr/bin/env bats
# oomctl -j: every command, with each policy and option that shapes its
# output, prints one JSON value whose every key is documented in the part of
# oomctl.8's JSON OUTPUT for that command (tests/vm/run --mem 1G). A key
# added to the source without a line in the man page fails here.

load helpers
load oomctl-helpers

setup() {
	cg_setup
	two_children
	kmsg_mark
}

teardown() {
	oomctl_teardown
}

# documented_keys PART — the keys (.Va) that oomctl.8 documents in the part
# of JSON OUTPUT whose heading (.Ss) names PART, one per line. Keys must be
# marked up as keys: a word in the prose does not count.
documented_keys() {
	sed 's/\\-/-/g' "$TOP/man/oomctl.8" | awk -v part="$1" '
		/^\.Sh / { json = ($0 == ".Sh JSON OUTPUT"); on = 0; next }
		json && /^\.Ss / {
			on = 0
			n = split($0, w, /[ ,]+/)
			for (i = 2; i <= n; i++)
				if (w[i] == part)
					on = 1
			next
		}
		# ".It Va links , programs , maps Pq arrays of numbers": the
		# words up to the next macro (Pq, No, ...).
		on && /^\.(It )?Va / {
			sub(/^\.(It )?Va /, "")
			n = split($0, w, " ")
			for (i = 1; i <= n && w[i] !~ /^[A-Z][a-z]$/; i++)
				if (w[i] ~ /^[a-z_]+$/)
					print w[i]
		}' | sort -u
}

# key_paths — every object key's path in the JSON on stdin, with array
# indices as [] (.links[].pin, [].name), one per line.
key_paths() {
	gojq -r 'paths | select(.[-1] | type == "string")
	       | map(if type == "number" then "[]" else "." + . end) | join("")' | sort -u
}

# check_json PART STATUS ARGS... — run 'oomctl -j ARGS': it must exit STATUS
# and print exactly one JSON value on stdout and nothing on stderr, and each
# of its keys must be documented in PART. The JSON is left in $JSON.
check_json() {
	local part=$1 want=$2 rc=0 doc p k
	shift 2
	JSON=$("$OOMCTL" -j "$@" 2>"$BATS_TEST_TMPDIR/stderr") || rc=$?
	echo "oomctl -j $*: exit $rc: $JSON"
	[ "$rc" = "$want" ] || return 1
	[ ! -s "$BATS_TEST_TMPDIR/stderr" ] || { cat "$BATS_TEST_TMPDIR/stderr"; return 1; }
	[ "$(gojq -s length <<<"$JSON")" = 1 ] || return 1
	# Looked up in the shell: a status has some 60 keys, and a grep for
	# each cost the guest ~12 s a call under TCG.
	[[ -n ${DOC_KEYS[$part]:-} ]] || DOC_KEYS[$part]=" $(documented_keys "$part" | paste -sd' ') "
	doc=${DOC_KEYS[$part]}
	[[ -n ${doc// /} ]] || { echo "oomctl.8 JSON OUTPUT has no part '$part' with keys"; return 1; }
	for p in $(key_paths <<<"$JSON"); do
		k=${p##*.}
		[[ $doc == *" $k "* ]] ||
			{ echo "$p: key '$k' is not documented in oomctl.8 JSON OUTPUT, $part"; return 1; }
	done
}
# documented_keys PART, once a part in each test's process.
declare -gA DOC_KEYS=()

# is JQ TYPE — is the jq filter JQ of $JSON of TYPE? So that a case that
# should produce a key (last_victim, from, replaced) is known to have.
is() { [ "$(gojq -r "$1 | type" <<<"$JSON")" = "$2" ]; }

# sleeper CGROUP — a process sleeping in CGROUP (cg_teardown kills it); its
# pid in SLEEPER.
sleeper() {
	(echo "$BASHPID" >"$1/cgroup.procs" && exec sleep 1000) 3>&- &
	SLEEPER=$!
}

@test "json: list" {
	check_json list 0 list
	is '.[0].attached' boolean
	"$OOMCTL" attach cgprio
	check_json list 0 list
	[ "$(gojq -r '.[] | select(.attached) | .name' <<<"$JSON")" = cgprio ]
}

@test "json: attach with each policy and its options, --replace, and detach" {
	check_json attach 0 attach cgprio --name json_cgprio --default-prio 5
	is .default_prio number
	check_json attach 0 attach pid --replace --name json_pid
	is .replaced string
	check_json attach 0 attach rss-slice --replace --slice "$CG/a" --slice oomtest/b
	is '.slices[1].cgroup_id' number
	check_json attach 0 attach abort-all --replace --cgroup "$CG/a"
	is .scoped boolean
	is '.scope[0].path' string
	check_json attach 0 attach abort-all --replace
	check_json detach 0 detach
	is '.maps[0]' number
}

@test "json: status with no policy, with each policy, and with a foreign program on the hooks" {
	check_json status 0 status
	is .attached boolean

	"$OOMCTL" attach cgprio --default-prio 5
	"$OOMCTL" set-prio "$CG/a" 10
	check_json status 0 status
	is '.prios[0].prio' number
	is .recent_failures object
	is '.links[0].prog_name' string

	sleeper "$CG/a"
	"$OOMCTL" attach pid --replace
	"$OOMCTL" add-pid "$SLEEPER"
	check_json status 0 status
	is '.pids[0].comm' string

	"$OOMCTL" attach rss-slice --replace --slice "$CG/a"
	check_json status 0 status
	is '.slices[0].cgroup' string

	"$OOMCTL" attach abort-all --replace --cgroup "$CG/b"
	check_json status 0 status
	is '.scope[0].cgroup_id' number
	"$OOMCTL" detach

	load_policy --mode none --name foreign
	check_json status 0 status
	is '.foreign[0].hook' string
	unload_policy
}

@test "json: status after a real OOM, with the last victim" {
	"$OOMCTL" attach cgprio --name json_oom
	"$OOMCTL" set-prio "$CG/a" 10
	"$OOMCTL" set-prio "$CG/b" 50
	hog_ready "$CG/a" 6 a
	low=$HOG_PID
	hog_ready "$CG/b" 12 b
	reap "$low"
	[ "$REAPED" = 137 ]
	wait_for 10 status_is .last_victim.pid "$low"
	check_json status 0 status
	is .last_victim object
	is .last_victim.kill number
	is .last_policy_name string
}

@test "json: set-prio, get-prio (own, inherited, default, every entry), unset-prio" {
	mkdir "$CG/a/x"
	"$OOMCTL" attach cgprio --default-prio 5
	check_json set-prio 0 set-prio "$CG/a" 10
	check_json get-prio 0 get-prio "$CG/a"
	[ "$(gojq -r .source <<<"$JSON")" = own ]
	check_json get-prio 0 get-prio oomtest/a/x
	[ "$(gojq -r .source <<<"$JSON")" = inherited ]
	is .from string
	check_json get-prio 0 get-prio "$CG/b"
	[ "$(gojq -r .source <<<"$JSON")" = default ]
	check_json get-prio 0 get-prio
	is '.[0].cgroup' string
	check_json unset-prio 0 unset-prio "$CG/a"
	is .removed boolean
}

@test "json: add-pid, get-pids, del-pid" {
	"$OOMCTL" attach pid
	sleeper "$CG/a"
	one=$SLEEPER
	sleeper "$CG/b"
	check_json add-pid 0 add-pid "$one" "$SLEEPER"
	is '.[1].pid' number
	check_json get-pids 0 get-pids
	[ "$(gojq length <<<"$JSON")" = 2 ]
	check_json del-pid 0 del-pid "$one"
	is '.[0].comm' string
}

@test "json: set-slice, get-slices, unset-slice" {
	"$OOMCTL" attach rss-slice
	check_json set-slice 0 set-slice "$CG/a" oomtest/b
	is '.[1].path' string
	check_json get-slices 0 get-slices
	[ "$(gojq length <<<"$JSON")" = 2 ]
	check_json unset-slice 0 unset-slice "$CG/a"
}

@test "json: errors, usage (2) and failure (1), are one object on stdout" {
	check_json Errors 2 set-prio "$CG/a" 10abc
	is .error string
	check_json Errors 2 frobnicate
	check_json Errors 1 get-pids
	check_json Errors 1 detach
	"$OOMCTL" attach cgprio
	check_json Errors 1 attach pid
	check_json Errors 1 set-prio "$CG/nonexistent" 5
}

@test "json: apply adds, changes, removes, skips, dry-runs and detaches" {
	conf=$BATS_TEST_TMPDIR/oomctl.conf
	printf '%s\n' "policy cgprio" "name json_apply" "default-prio 5" \
		"prio $CG/a 10" "prio $CG/b 20" "prio $CG/later 30" >"$conf"
	check_json apply 0 apply --skip-missing "$conf"
	is '.skipped[0].line' number
	is '.changes[0].value' string
	is '.changes[3].cgroup_id' number

	# A prio changed, one removed; the dry run first.
	printf '%s\n' "policy cgprio" "name json_apply" "default-prio 5" "prio $CG/a 15" >"$conf"
	check_json apply 0 apply --dry-run "$conf"
	[ "$(gojq -c '[.dry_run, .changed]' <<<"$JSON")" = '[true,false]' ]
	check_json apply 0 apply "$conf"
	[ "$(gojq -c '[.changes[].op]' <<<"$JSON")" = '["change","remove"]' ]
	check_json apply 0 apply "$conf"
	[ "$(gojq -c '.changes' <<<"$JSON")" = '[]' ]

	sleeper "$CG/a"
	check_json apply 0 apply - <<<"policy pid
pid $SLEEPER"
	[ "$(gojq -r .file <<<"$JSON")" = "<stdin>" ]
	is '.changes[1].pid' number

	check_json apply 0 apply - <<<"policy none"
	is .policy null
	is '.changes[0].was' string

	check_json Errors 2 apply - <<<"policy cgprio
slice $CG/a"
	check_json Errors 1 apply - <<<"policy cgprio
prio $CG/later 5"
}
