#!/usr/bin/env bats
# The man pages: lint clean, and in step with the commands, options and
# config directives oomctl has. Nothing here loads anything: oomctl only
# prints its help, or is refused a config file before it needs privileges.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	OOMCTL=$TOP/build/oomctl
	[ -x "$OOMCTL" ] || { echo "$OOMCTL is missing: run make" >&2; return 1; }
}

# render PAGE — a page of man/ as a reader sees it (mandoc's text, the
# overstrikes of bold and underline removed).
render() { mandoc -Tascii "$TOP/man/$1" | sed "s/.\x08//g"; }

# section NAME — the body of section NAME of a rendered page on stdin
# (section headings are the only lines starting with a capital letter).
section() { awk -v s="$1" '/^[A-Z]/ { on = ($0 == s); next } on'; }

# item TAG — the item of a tag list at the section's indent (5) whose tag's
# first word is TAG, up to the next item or subsection heading at that
# indent or less: its options, nested deeper, go with it.
item() {
	awk -v t="$1" '{ indent = match($0, /[^ ]/) - 1 } indent >= 0 && indent <= 5 { on = ($1 == t) } on'
}

# roff PAGE — a page's source, "\-" read as "-" so that names match.
roff() { sed 's/\\-/-/g' "$TOP/man/$1"; }

# roff_section NAME — the lines of section NAME (.Sh NAME) of roff on stdin.
roff_section() { awk -v s=".Sh $1" '/^\.Sh / { on = ($0 == s); next } on'; }

# command_item CMD — in COMMANDS' roff on stdin, the item of CMD (.It Cm CMD)
# up to the next command's; its nested option list goes with it.
command_item() { awk -v c="$1" '/^\.It Cm / { on = ($3 == c) } on'; }

# tag_options — the options (.Fl) on the tag lines (.It) of roff on stdin:
# documented with an item of their own, or on their command's tag line
# (.It Cm detach Op Fl --bpffs Ar dir). A mention in prose does not count.
tag_options() { grep '^\.It ' | grep -oE '\<Fl [^ ]+' | sed 's/^Fl /-/' | sort -u; }

# has WORD — does stdin contain WORD, not as part of a longer option or name?
has() { grep -qE -- "(^|[^[:alnum:]_-])$1([^[:alnum:]_-]|$)"; }

# help_options — the options a usage text on stdin names (-j, --json,
# --name), one per line. "rss-slice", "thread-group", "- reads standard
# input" and "(+ added, - removed)" are not options.
help_options() {
	grep -oE -- '(^|[^[:alnum:]_-])--?[[:alpha:]][[:alnum:]-]*' | sed -E 's/^[^-]+//' | sort -u
}

# as_nobody CMD... — run without any capability.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }

@test "man pages lint clean under mandoc -Tlint (warnings and worse)" {
	pages=("$TOP"/man/*.[0-9])
	echo "${pages[*]}"
	# The glob must take in every page, oomctl.conf.5 among them.
	[[ " ${pages[*]} " == *"/man/oomctl.conf.5 "* ]]
	run mandoc -Tlint -Wwarning "${pages[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "oomctl.8 documents every command and policy oomctl has" {
	cmds=$("$OOMCTL" help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
	[ -n "$cmds" ]
	page=$(render oomctl.8)
	for c in $cmds; do
		grep -q "^     $c\b" <<<"$page" || { echo "oomctl.8 lacks command $c"; return 1; }
	done
	policies=$(render oomctl-policies.7)
	for p in $("$OOMCTL" -j list | jq -r '.[].name'); do
		grep -q "^   $p\$" <<<"$policies" || { echo "oomctl-policies.7 lacks $p"; return 1; }
	done
}

@test "oomctl.8 documents every option that 'oomctl help' and 'oomctl COMMAND help' print" {
	cmds=$("$OOMCTL" help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
	[ -n "$cmds" ]
	commands=$(roff oomctl.8 | roff_section COMMANDS)
	options=$(roff oomctl.8 | roff_section OPTIONS | tag_options)
	echo "OPTIONS tags: $(echo $options)"
	checked=0
	# The global usage first (no command: its options are all common).
	for c in "" $cmds; do
		usage=$("$OOMCTL" $c help)
		# Above "Options:", the command's own (tags of its COMMANDS
		# item); below, the common ones (tags of OPTIONS).
		own=$(sed '/^Options:$/,$d' <<<"$usage" | help_options)
		common=$(sed -n '/^Options:$/,$p' <<<"$usage" | help_options)
		[ -n "$common" ] || { echo "no common options found in 'oomctl $c help'"; return 1; }
		tags=$options
		[ -z "$c" ] || tags=$(command_item "$c" <<<"$commands" | tag_options)
		for o in $own; do
			grep -qx -- "$o" <<<"$tags" ||
				{ echo "oomctl.8: '$c' lacks its option $o (has: $(echo $tags))"; return 1; }
			checked=$((checked + 1))
		done
		for o in $common; do
			grep -qx -- "$o" <<<"$options" ||
				{ echo "oomctl.8 OPTIONS lacks $o (from 'oomctl${c:+ $c} help')"; return 1; }
			checked=$((checked + 1))
		done
	done
	echo "$checked options checked"
	# attach's own options alone are six: a parser that found none passes nothing.
	[ "$("$OOMCTL" attach help | sed '/^Options:$/,$d' | help_options | wc -l)" -ge 6 ]
}

@test "oomctl.8's JSON OUTPUT has a part for every command, and for errors" {
	cmds=$("$OOMCTL" help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
	# Subsection headings: indent 3.
	heads=$(render oomctl.8 | section "JSON OUTPUT" | grep -E '^   [^ ]')
	echo "$heads"
	for c in $cmds; do
		[ "$c" = help ] && continue    # prints text, as the page says
		has "$c" <<<"$heads" || { echo "JSON OUTPUT lacks $c"; return 1; }
	done
	grep -qx '   Errors' <<<"$heads"
}

@test "oomctl.conf.5 documents every directive and policy that oomctl apply knows" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	page=$(render oomctl.conf.5)
	directives_list=$(section DESCRIPTION <<<"$page")
	# apply names what it knows when it meets what it does not. As nobody,
	# and the file is refused before privileges would matter.
	run as_nobody "$OOMCTL" -j --bpffs /nonexistent apply - <<<"no-such-directive x"
	[ "$status" -eq 2 ]
	msg=$(jq -r .error <<<"$output")
	[[ $msg == *"unknown directive 'no-such-directive' ("*")" ]]
	known=$(sed -E 's/.*\(([^()]*)\)$/\1/; s/,/ /g' <<<"$msg")
	echo "directives: $known"
	[ "$(wc -w <<<"$known")" -ge 7 ]
	for d in $known; do
		[ -n "$(item "$d" <<<"$directives_list")" ] || { echo "oomctl.conf.5 lacks directive $d"; return 1; }
	done

	run as_nobody "$OOMCTL" -j --bpffs /nonexistent apply - <<<"policy no-such"
	[ "$status" -eq 2 ]
	msg=$(jq -r .error <<<"$output")
	[[ $msg == *"unknown policy 'no-such' ("*")" ]]
	[[ $msg == *"; or a policy object's path"* ]]
	known=$(sed -E 's/.*\(([^()]*)\)$/\1/; s/;.*//; s/,/ /g; s/ or / /g' <<<"$msg")
	echo "policies: $known"
	policy_item=$(item policy <<<"$directives_list")
	for p in $known; do
		has "$p" <<<"$policy_item" || { echo "oomctl.conf.5: 'policy' lacks $p"; return 1; }
	done
	grep -q 'bpf\.o' <<<"$policy_item" || { echo "oomctl.conf.5: 'policy' lacks the object path"; return 1; }
}

@test "every config file in oomctl.conf.5's EXAMPLES is one that oomctl apply accepts" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	# Literal displays are indented 11; blank lines split them.
	blocks=$BATS_TEST_TMPDIR/blocks
	mkdir "$blocks"
	render oomctl.conf.5 | section EXAMPLES | awk -v d="$blocks" '
		/^           / { if (!open) { n++; open = 1 } print substr($0, 12) >(d "/" n); next }
		{ open = 0 }'
	n=0
	for f in "$blocks"/*; do
		grep -q '^policy ' "$f" || continue    # a shell command, not a file
		n=$((n + 1))
		# As nobody: a file that passes every check of its own is then
		# refused for want of privilege (exit 1); a bad one exits 2.
		run as_nobody "$OOMCTL" --bpffs /nonexistent apply - <"$f"
		echo "$(cat "$f")"$'\n'"=> $status: $output"
		[ "$status" -eq 1 ]
		[[ $output == "oomctl: apply: needs root"* ]]
	done
	echo "$n example files"
	[ "$n" -ge 4 ]
}
