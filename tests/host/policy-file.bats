#!/usr/bin/env bats
# oomctl attach PATH.bpf.o and apply's "policy PATH", on the host: an object
# that is not an oomctl policy, or whose description (its .oomctl.policy
# section, struct oomctl_policy_desc) is not one this oomctl can act on, is
# refused in one line naming the file, exit 1, before anything is loaded.
# Objects are made from a built policy with llvm-objcopy. What needs the
# kernel (the programs' hooks, a real attach) is in tests/vm/oomctl-file.bats.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	OOMCTL=$TOP/build/oomctl
	GOOD=$TOP/build/policies/cgprio.stripped.o
	if [ ! -x "$OOMCTL" ] || [ ! -f "$GOOD" ]; then echo "run make first" >&2; return 1; fi
	command -v llvm-objcopy >/dev/null || skip "llvm-objcopy (llvm) not installed"
	D=$BATS_TEST_TMPDIR
	llvm-objcopy --dump-section .oomctl.policy="$D/desc" "$GOOD"
}

# patched OUT OFFSET BYTES — $GOOD with its description's bytes at OFFSET
# (struct oomctl_policy_desc, bpf-policies/oomctl.h) replaced by BYTES
# (printf format).
patched() {
	cp "$D/desc" "$D/desc.new"
	# shellcheck disable=SC2059 # BYTES is a printf format by design
	printf "$3" | dd of="$D/desc.new" bs=1 seek="$2" conv=notrunc status=none
	llvm-objcopy --update-section .oomctl.policy="$D/desc.new" "$GOOD" "$D/$1"
}

# refused FILE NEEDLE — attach and apply both refuse FILE in one line
# naming it, exit 1.
refused() {
	run "$OOMCTL" attach "$1"
	echo "attach $1 => $status: $output"
	[ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ]
	[[ $output == "oomctl: attach: "*"$1"* ]] && [[ $output == *"$2"* ]]
	run "$OOMCTL" apply - <<<"policy $1"
	echo "apply $1 => $status: $output"
	[ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ]
	[[ $output == "oomctl: apply: "*"$1"* ]] && [[ $output == *"$2"* ]]
}

@test "attach FILE: a file that is no oomctl policy object is refused, naming it" {
	refused "$TOP/README.md" "not an ELF object"
	refused /bin/true "no .oomctl.policy section: not an oomctl policy"
	refused "$D/nosuch.bpf.o" "cannot read policy object $D/nosuch.bpf.o: No such file or directory"
	refused "$D" "is not a policy object (not a regular file"
	: >"$D/empty.o"
	refused "$D/empty.o" "is not a policy object (not a regular file"
}

@test "attach FILE: a description this oomctl cannot act on is refused, naming what is wrong" {
	head -c 100 "$D/desc" >"$D/short"
	llvm-objcopy --update-section .oomctl.policy="$D/short" "$GOOD" "$D/short.o"
	refused "$D/short.o" "section is not the size this oomctl reads"
	patched abi.o 0 '\x04'			# abi_version 4
	refused "$D/abi.o" "it was built for another oomctl ABI version"
	patched kind.o 4 '\x09'			# entry_kind 9
	refused "$D/kind.o" "its entry kind is unknown"
	patched flags.o 8 '\x80'		# an unknown flag
	refused "$D/flags.o" "its description has unknown flags"
	patched range.o 12 '\xff\x03'		# value_min 1023 > value_max 1000
	refused "$D/range.o" "its value range is empty"
	patched name.o 20 'Bad!'		# name "Bad!io"
	refused "$D/name.o" "its name is empty or not made of a-z"
	patched noname.o 20 '\x00'
	refused "$D/noname.o" "its name is empty"
	patched unterminated.o 20 'aaaaaaaaaaaaaaaa'	# name with no NUL
	refused "$D/unterminated.o" "not NUL-terminated"
	patched nomap.o 108 '\x00'		# entries, but no entry map
	refused "$D/nomap.o" "does not name their map"
}

@test "attach FILE: bundled names and paths are told apart by a '/'" {
	# A word is a bundled policy's name, even if such a file exists here.
	cp "$GOOD" "$D/cgprio"
	cd "$D"
	run "$OOMCTL" attach nosuch
	[ "$status" -eq 2 ]
	[[ $output == *"unknown policy 'nosuch' (cgprio, pid, "*", or a policy object's path such as ./nosuch.bpf.o)"* ]]
	# A good object gets past the file checks, to the kernel's (the host's
	# has no OOM hooks, and nothing is loaded).
	run "$OOMCTL" --bpffs "$D" attach "./cgprio"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "oomctl: this kernel lacks bpf_oom_evaluate_task — boot the kernel built from kernel/" ]
	[ ! -e "$D/oomctl" ]
}
