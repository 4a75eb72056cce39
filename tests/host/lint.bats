#!/usr/bin/env bats
# Every shell file in the tree through shellcheck: the bats files (as bash),
# the .bash and .sh files, and every file whose first line runs sh, bash or
# bats, found by name and shebang so that a new script is linted without
# being listed anywhere. Nothing at severity warning or above may be found;
# a finding is silenced only by a one-line directive that gives its reason:
#   # shellcheck disable=SC2xxx # why this code is right

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$TOP" || return 1
}

# shell_files — every shell file under the tree but build/ and .git, as
# paths relative to the top, one a line, sorted.
shell_files() {
	find . \( -path ./build -o -name .git \) -prune -o -type f -print | cut -c3- |
		while read -r f; do
			case $f in
			*.bats | *.bash | *.sh) echo "$f" ;;
			*) head -n 1 "$f" | grep -qE '^#! */(usr/)?bin/(env +)?(ba|da)?sh( |$)|^#!.*/bats( |$)' &&
				echo "$f" ;;
			esac
		done | LC_ALL=C sort
}

# lint FILE... — shellcheck at severity warning and above; bats files as
# bash (shellcheck knows bats' @test and SC2314 then too).
lint() {
	local f bats=() sh=() rc=0
	for f; do
		case $f in
		*.bats) bats+=("$f") ;;
		*) sh+=("$f") ;;
		esac
	done
	if ((${#bats[@]})); then shellcheck -s bash -S warning -f gcc "${bats[@]}" || rc=1; fi
	if ((${#sh[@]})); then shellcheck -S warning -f gcc "${sh[@]}" || rc=1; fi
	return "$rc"
}

@test "lint: the file list has every kind of shell file, and every bats file" {
	shell_files >"$BATS_TEST_TMPDIR/files"
	for f in .ci/run completion/oomctl.bash scripts/deps.sh scripts/series.bash \
		tests/run-bats tests/summary tests/vm/run tests/vm/init tests/vm/demo \
		tests/vm/stacks tests/vm/helpers.bash tests/bench/bench tests/bench/report \
		tests/host/lint.bats; do
		grep -qxF "$f" "$BATS_TEST_TMPDIR/files" || { echo "not found: $f"; return 1; }
	done
	[ "$(grep -c '\.bats$' "$BATS_TEST_TMPDIR/files")" = "$(find tests -name '*.bats' | wc -l)" ]
	# C, man pages, patches and Makefiles are not shell.
	run grep -E '\.(c|h|[1-8]|patch|mk|md)$|Makefile' "$BATS_TEST_TMPDIR/files"
	[ "$status" -eq 1 ]
}

@test "lint: shellcheck finds nothing at severity warning or above" {
	mapfile -t files < <(shell_files)
	run lint "${files[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	echo "# shellcheck -S warning: ${#files[@]} files, no finding" >&3
}

@test "lint: every shellcheck directive that disables a check gives its reason on its line" {
	mapfile -t files < <(shell_files)
	grep -HnE '^[[:space:]]*# shellcheck .*disable=' "${files[@]}" >"$BATS_TEST_TMPDIR/disables" || true
	cat "$BATS_TEST_TMPDIR/disables"
	# Some are found: the pattern below is known to match them.
	[ -s "$BATS_TEST_TMPDIR/disables" ]
	run grep -vE '^[^:]+:[0-9]+:[[:space:]]*# shellcheck disable=SC[0-9]+(,SC[0-9]+)* # [^ ].{5,}$' \
		"$BATS_TEST_TMPDIR/disables"
	echo "without a reason: $output"
	[ "$status" -eq 1 ]
}

@test "lint: a finding fails it: a '!' that is not a test's last line, rm -rf \"\$dir\"/*" {
	printf '%s\n' '#!/usr/bin/env bats' '@test "bang" {' '	! false' '	true' '}' >"$BATS_TEST_TMPDIR/bang.bats"
	run lint "$BATS_TEST_TMPDIR/bang.bats"
	[ "$status" -eq 1 ]
	[[ $output == *"bang.bats:"*"[SC2314]"* ]]
	printf '%s\n' '#!/bin/bash' 'rm -rf "$dir"/*' >"$BATS_TEST_TMPDIR/script"
	run lint "$BATS_TEST_TMPDIR/script"
	[ "$status" -eq 1 ]
	[[ $output == *"[SC2115]"* ]]
}
