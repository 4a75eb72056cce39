#!/usr/bin/env bats
# The production path of make kernel-deb (KERNEL_CONFIG=debian): Debian's own
# amd64 config (linux-config-6.12) with kernel/production.config merged in
# and olddefconfig run on the patched tree must keep every option the hooks
# and the policies need. Only the config is made (scripts/kernel-deb.sh
# --config-only: one extraction of the source, cached by its inputs); the
# kernel is not built.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	DEBIAN_AMD64=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
}

@test "Debian's amd64 config with kernel/production.config keeps every option the hooks and policies need" {
	# No Debian config is a failure, not a skip: make deps installs it.
	[ -r "$DEBIAN_AMD64" ] || {
		echo "no $DEBIAN_AMD64 (package linux-config-6.12): run make deps"
		return 1
	}
	run "$TOP/scripts/kernel-deb.sh" --config debian --config-only "$BATS_TEST_TMPDIR/out"
	echo "$output"
	[ "$status" -eq 0 ]
	config=$BATS_TEST_TMPDIR/out/config
	[ "${lines[-1]}" = "$config" ]

	# Every option of the fragment, as the fragment sets it.
	grep -E '^CONFIG_[A-Z0-9_]+=' "$TOP/kernel/production.config" >"$BATS_TEST_TMPDIR/want"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/want")" -ge 10 ]
	missing=$(grep -vxF -f "$config" "$BATS_TEST_TMPDIR/want" || true)
	[ -z "$missing" ] || {
		echo "lost in the merge: $missing"
		return 1
	}
	# It is still Debian's kernel: its modules and its own choices stay.
	[ "$(grep -c '=m$' "$config")" -ge 3000 ]
	grep -qx 'CONFIG_MODULE_SIG=y' "$config"
	grep -qx 'CONFIG_SECURITY_APPARMOR=y' "$config"
}

@test "a base config on which a needed option cannot stay fails the merge, naming the option" {
	[ -r "$DEBIAN_AMD64" ] || return 1
	# Reduced debug info leaves no BTF (DEBUG_INFO_BTF depends on
	# !DEBUG_INFO_REDUCED): a kernel no policy can load on.
	xzcat "$DEBIAN_AMD64" |
		sed 's/^# CONFIG_DEBUG_INFO_REDUCED is not set$/CONFIG_DEBUG_INFO_REDUCED=y/' \
			>"$BATS_TEST_TMPDIR/reduced.config"
	grep -qx 'CONFIG_DEBUG_INFO_REDUCED=y' "$BATS_TEST_TMPDIR/reduced.config"
	DEBIAN_CONFIG=$BATS_TEST_TMPDIR/reduced.config \
		run "$TOP/scripts/kernel-deb.sh" --config debian --config-only "$BATS_TEST_TMPDIR/out"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "kernel-deb: kernel/production.config: CONFIG_DEBUG_INFO_BTF=y did not take effect (dependency missing?)" ]]
	[ ! -e "$BATS_TEST_TMPDIR/out/config" ]
}

@test "kernel-deb.sh refuses a config it does not know, and a missing directory, with one line" {
	run "$TOP/scripts/kernel-deb.sh" --config fedora "$BATS_TEST_TMPDIR/out"
	[ "$status" -eq 1 ]
	[ "$output" = "kernel-deb: --config is 'tested' or 'debian', not 'fedora'" ]
	run "$TOP/scripts/kernel-deb.sh" --config debian
	[ "$status" -eq 2 ]
	[ "$output" = "usage: scripts/kernel-deb.sh [--config tested|debian] [--config-only] OUTDIR" ]
	[ ! -e "$BATS_TEST_TMPDIR/out" ]
}
