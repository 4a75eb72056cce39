#!/usr/bin/env bats
# The man pages: lint clean, and in step with the commands oomctl has.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
}

@test "man pages lint clean under mandoc -Tlint (warnings and worse)" {
	run mandoc -Tlint -Wwarning "$TOP"/man/*.[0-9]
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "oomctl.8 documents every command and policy oomctl has" {
	cmds=$("$TOP/build/oomctl" help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
	[ -n "$cmds" ]
	page=$(mandoc -Tascii "$TOP/man/oomctl.8" | sed "s/.\x08//g")
	for c in $cmds; do
		grep -q "^     $c\b" <<<"$page" || { echo "oomctl.8 lacks command $c"; return 1; }
	done
	policies=$(mandoc -Tascii "$TOP/man/oomctl-policies.7" | sed "s/.\x08//g")
	for p in $("$TOP/build/oomctl" -j list | jq -r '.[].name'); do
		grep -q "^   $p\$" <<<"$policies" || { echo "oomctl-policies.7 lacks $p"; return 1; }
	done
}
