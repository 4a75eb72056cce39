#!/usr/bin/env bash
# Install the Debian packages oomctl needs to build, test and demo.
# Idempotent: when everything is installed it does nothing (no apt-get update).
# This is the one place packages are named.
set -euo pipefail

packages=(
	# kernel build
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	dwarves xz-utils python3
	# BPF programs and the oomctl binary
	clang llvm libbpf-dev bpftool pkg-config zlib1g-dev libjson-c-dev
	# the VM and the tests
	qemu-system-x86 bats jq util-linux procps bash-completion
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
