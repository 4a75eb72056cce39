#!/usr/bin/env bash
# Install the Debian packages oomctl needs to build, test and demo.
# Idempotent: when everything is installed it does nothing (no apt-get update).
# This is the one place packages are named, but for oomctl's own build
# dependencies: those are debian/control's Build-Depends, read from there.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

# build_depends — the package names of debian/control's Build-Depends, one
# a line: versions and architecture lists dropped, debhelper-compat being
# debhelper's.
build_depends() {
	awk '/^[^ \t]/ { on = sub(/^Build-Depends:/, "") } on' "$top/debian/control" |
		tr ',' '\n' | sed -E 's/\([^)]*\)|\[[^]]*\]|<[^>]*>|[[:space:]]//g; s/^debhelper-compat$/debhelper/' |
		sed '/^$/d'
}

packages=(
	# kernel build
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	dwarves xz-utils python3
	# make kernel-deb: the kernel's bindeb-pkg, and Debian's own configs
	# for its production path (tests/host/kernel-config.bats)
	linux-config-6.12 cpio kmod
	# the package's checks (tests/host/deb.bats)
	lintian
	# the Debian guest (scripts/build-image.sh)
	mmdebstrap
	# the VM and the tests
	qemu-system-x86 qemu-utils bats jq util-linux procps bash-completion
	# the 9p guest's tests read JSON with gojq: under TCG it starts in about
	# 40 ms, jq 1.6 in 200 (jq compiles its builtins at each start)
	gojq
	# a hung guest's vCPU stacks, read through QEMU's gdbstub (tests/vm/stacks)
	gdb
	# the series' BPF selftest (make selftest): the selftests' Makefile copies with rsync
	rsync
	# man page lint
	mandoc
	# shell lint (tests/host/lint.bats)
	shellcheck
	# the kernel's cgroup selftests in the VM: an ext2 to run on, the loopback up
	e2fsprogs iproute2
)
# The BPF programs and the oomctl binary (clang, libbpf-dev, ...), and
# debhelper for make deb.
mapfile -t -O "${#packages[@]}" packages < <(build_depends)
((${#packages[@]} > 20)) || { echo "deps: no Build-Depends read from debian/control" >&2; exit 1; }

missing=()
for p in "${packages[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ $st == "install ok installed" ]] || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

if ((EUID != 0)); then
	echo "deps: missing packages: ${missing[*]} — run 'make deps' as root" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
