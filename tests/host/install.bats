#!/usr/bin/env bats
# make install and make uninstall (install.mk): the files a package holds,
# with their modes, under DESTDIR and nowhere else; uninstall takes back
# exactly those. Every install here goes to a DESTDIR under the test's
# temporary directory: never the real /usr/local.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	D=$BATS_TEST_TMPDIR/dest
	mkdir -p "$D"
}

# mk ARGS... — make in the repository, output shown if the test fails.
mk() { make -C "$TOP" --no-print-directory "$@"; }

# tree DIR — "MODE ./PATH" of everything under DIR that is not a directory
# (files, and symlinks or anything else that should not be there), sorted.
tree() { (cd "$1" && find . ! -type d -printf '%m %p\n' | LC_ALL=C sort); }

# dirs DIR — the directories under DIR, sorted.
dirs() { (cd "$1" && find . -mindepth 1 -type d | LC_ALL=C sort); }

# expected PREFIX — the tree `make install PREFIX=PREFIX` lays out. The
# three pages are named so that a missing one fails; any other page in
# man/ is expected too, in the section its name ends with.
expected() {
	local p=.$1 m
	{
		echo "755 $p/sbin/oomctl"
		echo "644 $p/share/man/man8/oomctl.8"
		echo "644 $p/share/man/man7/oomctl-policies.7"
		echo "644 $p/share/man/man5/oomctl.conf.5"
		for m in "$TOP"/man/*.[1-8]; do
			echo "644 $p/share/man/man${m##*.}/${m##*/}"
		done
		echo "644 $p/share/bash-completion/completions/oomctl.bash"
		echo "644 $p/lib/systemd/system/oomctl.service"
		echo "644 $p/share/doc/oomctl/examples/oomctl.conf"
		echo "644 $p/share/doc/oomctl/examples/newest.bpf.c"
		echo "644 $p/share/doc/oomctl/README.md"
		echo "644 $p/share/doc/oomctl/CHANGELOG.md"
		echo "644 $p/include/oomctl/policy.bpf.h"
		echo "644 $p/include/oomctl/oomctl.h"
	} | LC_ALL=C sort -u
}

@test "make install DESTDIR= PREFIX=/usr lays out exactly a package's files, with their modes" {
	# install.mk must not call systemctl: one on PATH that leaves a mark.
	mkdir "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\ntouch "%s/systemctl-called"\nexit 1\n' "$BATS_TEST_TMPDIR" \
		>"$BATS_TEST_TMPDIR/bin/systemctl"
	chmod +x "$BATS_TEST_TMPDIR/bin/systemctl"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH mk install DESTDIR="$D" PREFIX=/usr
	[ ! -e "$BATS_TEST_TMPDIR/systemctl-called" ]
	# Exactly these: a missing or an extra file (/etc/oomctl.conf, a test
	# tool from build/tests/) fails.
	diff -u <(expected /usr) <(tree "$D")
	# Each one is the file it comes from.
	cmp "$TOP/build/oomctl" "$D/usr/sbin/oomctl"
	local m
	for m in "$TOP"/man/*.[1-8]; do
		cmp "$m" "$D/usr/share/man/man${m##*.}/${m##*/}"
	done
	cmp "$TOP/completion/oomctl.bash" "$D/usr/share/bash-completion/completions/oomctl.bash"
	cmp "$TOP/etc/oomctl.conf.example" "$D/usr/share/doc/oomctl/examples/oomctl.conf"
	cmp "$TOP/README.md" "$D/usr/share/doc/oomctl/README.md"
	cmp "$TOP/CHANGELOG.md" "$D/usr/share/doc/oomctl/CHANGELOG.md"
	cmp "$TOP/bpf-policies/policy.bpf.h" "$D/usr/include/oomctl/policy.bpf.h"
	cmp "$TOP/bpf-policies/oomctl.h" "$D/usr/include/oomctl/oomctl.h"
	cmp "$TOP/examples/policies/newest.bpf.c" "$D/usr/share/doc/oomctl/examples/newest.bpf.c"
}

@test "the installed unit runs the installed binary: @SBINDIR@ substituted, nothing else changed" {
	mk install DESTDIR="$D" PREFIX=/usr
	unit=$D/usr/lib/systemd/system/oomctl.service
	grep -qx 'ExecStart=/usr/sbin/oomctl apply --skip-missing /etc/oomctl.conf' "$unit"
	grep -qx 'ExecReload=/usr/sbin/oomctl apply --skip-missing /etc/oomctl.conf' "$unit"
	grep -qx 'ExecStop=-/usr/sbin/oomctl detach' "$unit"
	run grep -n '@[A-Za-z_]*@' "$unit"
	echo "$output"
	[ "$status" -eq 1 ]
	diff -u <(sed 's|@SBINDIR@|/usr/sbin|g' "$TOP/systemd/oomctl.service.in") "$unit"
}

@test "a Debian package's SYSTEMDUNITDIR=/lib/systemd/system moves only the unit" {
	mk install DESTDIR="$D" PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system
	diff -u <(expected /usr | sed 's|\./usr/lib/systemd/system/|./lib/systemd/system/|' | LC_ALL=C sort) <(tree "$D")
	grep -qx 'ExecStop=-/usr/sbin/oomctl detach' "$D/lib/systemd/system/oomctl.service"
}

# systemd-analyze verify checks the unit's syntax, its dependencies (on the
# host's units), that each Exec binary exists and is executable, and, with
# man(1), that the Documentation= pages exist. The binary and the pages are
# in DESTDIR, not in the host's root, and --root=DESTDIR would look for
# sysinit.target and the rest there too: so verify a copy whose Exec lines
# name DESTDIR's binary, with MANPATH on DESTDIR's pages. verify exits 0 even
# for unknown keys and bad values, only saying so: any output fails.
@test "the installed unit passes systemd-analyze verify (binary and man pages found in DESTDIR)" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze not installed"
	command -v man >/dev/null || skip "man not installed (verify checks Documentation= with it)"
	mk install DESTDIR="$D" PREFIX=/usr
	mkdir "$BATS_TEST_TMPDIR/verify"
	unit=$BATS_TEST_TMPDIR/verify/oomctl.service
	sed "s|=\(-\{0,1\}\)/usr/sbin/oomctl |=\1$D/usr/sbin/oomctl |" "$D/usr/lib/systemd/system/oomctl.service" >"$unit"
	[ "$(grep -c "^Exec[A-Za-z]*=-\{0,1\}$D/usr/sbin/oomctl " "$unit")" -eq 3 ]
	run env MANPATH="$D/usr/share/man" systemd-analyze verify "$unit"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# The check can fail on this systemd: a bad key, a page that is not
	# there, a binary that is not there all make it speak.
	cp "$unit" "$BATS_TEST_TMPDIR/verify/bad.service"
	echo 'ProtectSystem=stricter' >>"$BATS_TEST_TMPDIR/verify/bad.service"
	run env MANPATH="$D/usr/share/man" systemd-analyze verify "$BATS_TEST_TMPDIR/verify/bad.service"
	[[ $output == *ProtectSystem* ]]
	run systemd-analyze verify "$unit"
	[[ $output == *"oomctl.conf(5)"* ]]
	if [ ! -e /usr/sbin/oomctl ]; then
		run env MANPATH="$D/usr/share/man" systemd-analyze verify "$D/usr/lib/systemd/system/oomctl.service"
		[ "$status" -ne 0 ]
		[[ $output == *"/usr/sbin/oomctl is not executable"* ]]
	fi
}

@test "make install with the default PREFIX puts everything under usr/local" {
	mk install DESTDIR="$D"
	diff -u <(expected /usr/local) <(tree "$D")
	grep -qx 'ExecStart=/usr/local/sbin/oomctl apply --skip-missing /etc/oomctl.conf' \
		"$D/usr/local/lib/systemd/system/oomctl.service"
}

@test "a second make install succeeds and changes nothing" {
	mk install DESTDIR="$D" PREFIX=/usr
	tree "$D" >"$BATS_TEST_TMPDIR/first"
	(cd "$D" && find . -type f -exec md5sum {} + | LC_ALL=C sort -k2) >"$BATS_TEST_TMPDIR/first.sum"
	mk install DESTDIR="$D" PREFIX=/usr
	diff -u "$BATS_TEST_TMPDIR/first" <(tree "$D")
	diff -u "$BATS_TEST_TMPDIR/first.sum" <(cd "$D" && find . -type f -exec md5sum {} + | LC_ALL=C sort -k2)
}

@test "make uninstall removes exactly what install put, and the emptied doc and include directories" {
	# Someone else's files in the directories we share.
	mkdir -p "$D/usr/sbin" "$D/usr/share/man/man8" "$D/usr/share/doc/other"
	touch "$D/usr/sbin/other" "$D/usr/share/man/man8/other.8" "$D/usr/share/doc/other/README"
	before=$(tree "$D")
	mk install DESTDIR="$D" PREFIX=/usr
	mk uninstall DESTDIR="$D" PREFIX=/usr
	[ "$(tree "$D")" = "$before" ]
	[ ! -e "$D/usr/share/doc/oomctl" ]
	[ ! -e "$D/usr/include/oomctl" ]
	# Nothing left to remove is not an error.
	mk uninstall DESTDIR="$D" PREFIX=/usr
	[ "$(tree "$D")" = "$before" ]
}

@test "make uninstall with the default PREFIX leaves no file behind" {
	mk install DESTDIR="$D"
	mk uninstall DESTDIR="$D"
	run tree "$D"
	echo "$output"
	[ -z "$output" ]
	# Of the directories install made only the shared ones (sbin, man8, ...)
	# stay; our doc directory goes.
	run dirs "$D"
	echo "$output"
	[[ $output == *./usr/local/sbin* ]]
	[[ $output != *doc/oomctl* ]]
	[[ $output != *include/oomctl* ]]
}

@test "make uninstall keeps a doc directory holding someone else's file" {
	mk install DESTDIR="$D" PREFIX=/usr
	touch "$D/usr/share/doc/oomctl/examples/mine.conf"
	mode=$(stat -c %a "$D/usr/share/doc/oomctl/examples/mine.conf")
	mk uninstall DESTDIR="$D" PREFIX=/usr
	[ "$(tree "$D")" = "$mode ./usr/share/doc/oomctl/examples/mine.conf" ]
}

@test "a directory with a blank or a colon is refused, nothing installed" {
	run mk install DESTDIR="$D/a b" PREFIX=/usr
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"install: directory '$D/a b' contains a blank"* ]]
	run mk uninstall DESTDIR="$D" PREFIX=/usr:x
	[ "$status" -ne 0 ]
	[[ $output == *"uninstall: directory '/usr:x/sbin' contains"* ]]
	run tree "$D"
	[ -z "$output" ]
	[ ! -e "$D/a b" ]
}
