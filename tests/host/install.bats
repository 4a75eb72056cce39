#!/usr/bin/env bats
# make install and make uninstall: the files a Debian package would hold,
# under DESTDIR, and nothing else; never the running system.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	D=$BATS_TEST_TMPDIR/dest
}

# files DIR — every file under DIR with its mode, sorted.
files() { (cd "$1" && find . -type f -printf '%m %p\n' | sort); }

@test "make install DESTDIR= PREFIX=/usr lays out exactly a package's files" {
	run make -C "$TOP" --no-print-directory install DESTDIR="$D" PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system
	echo "$output"
	[ "$status" -eq 0 ]
	expected="755 ./usr/sbin/oomctl
644 ./usr/share/man/man8/oomctl.8
644 ./usr/share/man/man7/oomctl-policies.7
644 ./usr/share/man/man5/oomctl.conf.5
644 ./usr/share/bash-completion/completions/oomctl
644 ./lib/systemd/system/oomctl.service
644 ./usr/share/doc/oomctl/examples/oomctl.conf
644 ./usr/share/doc/oomctl/README.md
644 ./usr/share/doc/oomctl/CHANGELOG.md"
	diff <(sort <<<"$expected") <(files "$D")
	# The installed binary is the built one, the unit names it.
	cmp "$TOP/build/oomctl" "$D/usr/sbin/oomctl"
	grep -qx 'ExecStart=/usr/sbin/oomctl apply --skip-missing /etc/oomctl.conf' "$D/lib/systemd/system/oomctl.service"
	! grep -q '@[A-Z]*@' "$D/lib/systemd/system/oomctl.service"
	[ ! -e "$D/etc" ]
}

@test "the installed unit passes systemd-analyze verify" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze not installed"
	make -C "$TOP" --no-print-directory install DESTDIR="$D" PREFIX=/usr >/dev/null
	# verify checks that ExecStart's binary exists: point it at the copy.
	unit=$BATS_TEST_TMPDIR/oomctl.service
	sed "s|=/usr/sbin/oomctl|=$D/usr/sbin/oomctl|" "$D/usr/lib/systemd/system/oomctl.service" >"$unit"
	run systemd-analyze verify --man=no "$unit"    # the pages are not installed on this host
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -i 'unknown\|invalid\|fail' <<<"$output"
}

@test "make install defaults to /usr/local; uninstall removes exactly what it installed" {
	mkdir -p "$D/usr/local/share/doc/other"
	touch "$D/usr/local/share/doc/other/keep"
	run make -C "$TOP" --no-print-directory install DESTDIR="$D"
	[ "$status" -eq 0 ]
	[ -x "$D/usr/local/sbin/oomctl" ]
	[ -f "$D/usr/local/lib/systemd/system/oomctl.service" ]
	grep -q '^ExecStop=/usr/local/sbin/oomctl detach$' "$D/usr/local/lib/systemd/system/oomctl.service"
	# Twice is fine.
	run make -C "$TOP" --no-print-directory install DESTDIR="$D"
	[ "$status" -eq 0 ]
	run make -C "$TOP" --no-print-directory uninstall DESTDIR="$D"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(files "$D")" = "0 ./usr/local/share/doc/other/keep" ] || [ "$(files "$D")" = "644 ./usr/local/share/doc/other/keep" ]
	[ ! -e "$D/usr/local/share/doc/oomctl" ]
	# And again: nothing left to remove is not an error.
	run make -C "$TOP" --no-print-directory uninstall DESTDIR="$D"
	[ "$status" -eq 0 ]
}
