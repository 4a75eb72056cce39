#!/usr/bin/env bats
# kernel/vmlinux.h, the committed dump of the patched kernel's BTF that the
# BPF programs compile against, so that make, make install and make deb
# build no kernel: it must define exactly the types the kernel the series
# builds has, and those three targets must reach neither the kernel nor apt.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	KDIR=$("$TOP/scripts/build-kernel.sh" --print-dir)
}

# definitions FILE — a bpftool C dump's definitions, one record each, sorted:
# what the BTF says, not the order pahole's parallel encoder happened to put
# it in. Two builds of the same kernel give the same types in another order,
# hence other forward declarations and other ___N suffixes on colliding
# names (seen: a rebuild of the same series differed from the committed
# dump in 1,200 lines, and in nothing here).
definitions() {
	sed -E 's/___[0-9]+\b//g; /^(struct|union|enum) [A-Za-z_0-9]+;$/d' "$1" |
		awk 'BEGIN { RS = ""; ORS = "\0" } { print }' | sort -z | tr '\0' '\n'
}

@test "kernel/vmlinux.h has the types of the kernel the series builds, definition for definition" {
	# No kernel is a failure, not a skip: make check builds it first.
	[ -r "$KDIR/vmlinux.h" ] || {
		echo "no $KDIR/vmlinux.h: the series' kernel is not built (make kernel)"
		return 1
	}
	diff -u <(definitions "$TOP/kernel/vmlinux.h") <(definitions "$KDIR/vmlinux.h") \
		>"$BATS_TEST_TMPDIR/diff" || {
		head -40 "$BATS_TEST_TMPDIR/diff"
		echo "kernel/vmlinux.h differs from the series' kernel: review the diff, then run make vmlinux-h"
		return 1
	}
}

@test "kernel/vmlinux.h has the series' OOM types: oom_control's fields, the verdicts, bpf_oom_task_info" {
	h=$TOP/kernel/vmlinux.h
	# Each name once, as its definition.
	for t in 'struct oom_control {' 'enum bpf_oom_eval_result {' 'enum bpf_oom_ineligible {' \
		'struct bpf_oom_task_info {'; do
		[ "$(grep -cxF "$t" "$h")" -eq 1 ] || { echo "kernel/vmlinux.h lacks: $t"; return 1; }
	done
	oc=$(sed -n '/^struct oom_control {$/,/^};$/p' "$h")
	for f in 'bool bpf_bypass;' 'bool bpf_selected;' 'bool bpf_aborted;' 'bool bpf_overrun;' \
		'u64 bpf_ns;' 'u64 memcg_paused_ns;' 'char policy_name[16];'; do
		grep -qxF "	$f" <<<"$oc" || { echo "struct oom_control lacks: $f"; return 1; }
	done
	for v in NO_BPF_POLICY BPF_EVAL_ABORT BPF_EVAL_NEXT BPF_EVAL_SELECT BPF_OOM_ELIGIBLE; do
		grep -qE "^	$v = [0-9]+,$" "$h" || { echo "kernel/vmlinux.h lacks: $v"; return 1; }
	done
}

# plan TARGET... — what make would run for TARGET... from scratch (-B),
# with an empty kernel cache.
plan() {
	OOMCTL_CACHE=$BATS_TEST_TMPDIR/cache make -C "$TOP" --no-print-directory -n -B "$@"
}

@test "make and make install build no kernel, run no apt, and compile the BPF code against kernel/vmlinux.h" {
	for t in all install; do
		run plan "$t"
		[ "$status" -eq 0 ]
		[[ $output == *"cp kernel/vmlinux.h build/vmlinux.h"* ]]
		[[ $output == *"clang "*"-c bpf-policies/cgprio.bpf.c"* ]]
		for no in build-kernel.sh build-cgroup-selftests.sh deps.sh apt-get; do
			[[ $output != *"$no"* ]] || { echo "make $t runs $no"; return 1; }
		done
	done
	[ ! -e "$BATS_TEST_TMPDIR/cache" ]
	# What a VM run needs still builds the kernel first.
	run plan check-vm-memcg
	[[ $output == *"scripts/build-kernel.sh"* ]]
}

@test "VMLINUX_H=FILE takes the kernel's types from FILE, as in bpftool's Makefile" {
	run plan VMLINUX_H=/elsewhere/vmlinux.h build/policies/pid.bpf.o
	[ "$status" -eq 0 ]
	[[ $output == *"cp /elsewhere/vmlinux.h build/vmlinux.h"* ]]
	[[ $output != *"kernel/vmlinux.h"* ]]
}
