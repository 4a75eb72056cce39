#!/usr/bin/env bats
# make deb: the Debian package of oomctl (debian/), built once for the file
# with an empty kernel cache and an apt that fails; then its files, lintian,
# and its company: Debian's systemd-oomd, which has an oomctl of its own,
# downloaded with apt-get download (no network to Debian's archive is a
# failure, not a skip). Nothing is installed into this machine: packages
# are unpacked into roots under the test's temporary directory.

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	local t=$BATS_FILE_TMPDIR
	mkdir -p "$t/bin" "$t/oomd"
	# apt and apt-get that leave a mark: make deb must run neither.
	for a in apt apt-get; do
		printf '#!/bin/sh\ntouch "%s/apt-called"\nexit 1\n' "$t" >"$t/bin/$a"
		chmod +x "$t/bin/$a"
	done
	# Into DEB_DIR, not build/deb: make check's other lane may be building
	# the Debian guest's image from build/deb at the same time.
	(cd "$TOP" && PATH=$t/bin:$PATH OOMCTL_CACHE=$t/cache nice make --no-print-directory deb DEB_DIR="$t/deb") \
		>"$t/make.out" 2>&1 && echo 0 >"$t/make.rc" || echo $? >"$t/make.rc"
	(cd "$t/oomd" && apt-get download systemd-oomd) >"$t/oomd.log" 2>&1 || true
}

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	T=$BATS_FILE_TMPDIR
	DEB=$(tail -n 1 "$T/make.out")
	[ "$(cat "$T/make.rc")" -eq 0 ] && [ -f "$DEB" ] || {
		echo "make deb failed ($(cat "$T/make.rc")):"
		cat "$T/make.out"
		return 1
	}
}

# oomd_deb — systemd-oomd's .deb, or a failure that says why there is none.
oomd_deb() {
	local d=("$T"/oomd/systemd-oomd_*.deb)
	[ -f "${d[0]}" ] || {
		echo "no systemd-oomd .deb: 'apt-get download systemd-oomd' failed (no network to Debian's archive, or no apt lists: apt-get update):" >&2
		cat "$T/oomd.log" >&2
		return 1
	}
	echo "${d[0]}"
}

# files DEB — "MODE PATH" of every non-directory in DEB, sorted by path.
files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $1, $6 }' | LC_ALL=C sort -k2; }

# paths DEB — the paths of files DEB, sorted.
paths() { files "$1" | awk '{ print $2 }'; }

# unpacked ROOT DEB... — a dpkg database in ROOT and DEB... unpacked there
# with dpkg --root: what dpkg -i does before any maintainer script runs
# (neither package has a preinst), a file conflict included.
unpacked() {
	local root=$1
	shift
	mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
	touch "$root/var/lib/dpkg/status"
	dpkg --root="$root" --force-depends --unpack "$@"
}

@test "make deb builds build/deb/oomctl_VERSION_amd64.deb with no kernel and no apt" {
	version=$(sed -n 's/^#define OOMCTL_VERSION "\(.*\)"$/\1/p' "$TOP/src/main.c")
	[[ $DEB =~ ^"$T"/deb/oomctl_${version//./\\.}~git[0-9]{8}\.[0-9a-f]{7,}(\+dirty)?_amd64\.deb$ ]]
	# Built into DEB_DIR above; build/deb when it is not given.
	[ "$(cd "$TOP" && make -n --no-print-directory deb)" = "scripts/deb.sh build/deb" ]
	[ "$(dpkg-deb -f "$DEB" Package Architecture Depends)" = "$(printf 'Package: oomctl\nArchitecture: amd64\nDepends: libc6 (>= 2.34)')" ]
	[ ! -e "$T/apt-called" ]
	# Nothing went into the empty kernel cache: no kernel, no selftests.
	[ ! -e "$T/cache" ] || [ -z "$(ls -A "$T/cache")" ]
}

@test "the package holds oomctl's files, with their modes; the unit runs /usr/sbin/oomctl and is enabled" {
	diff -u - <(files "$DEB") <<'EOF'
-rw-r--r-- ./etc/bash_completion.d/oomctl.bash
-rw-r--r-- ./lib/systemd/system/oomctl.service
-rw-r--r-- ./usr/include/oomctl/oomctl.h
-rw-r--r-- ./usr/include/oomctl/policy.bpf.h
-rwxr-xr-x ./usr/sbin/oomctl
-rw-r--r-- ./usr/share/bash-completion/completions/oomctl.bash
-rw-r--r-- ./usr/share/doc/oomctl/CHANGELOG.md.gz
-rw-r--r-- ./usr/share/doc/oomctl/README.md.gz
-rw-r--r-- ./usr/share/doc/oomctl/changelog.gz
-rw-r--r-- ./usr/share/doc/oomctl/copyright
-rw-r--r-- ./usr/share/doc/oomctl/examples/newest.bpf.c
-rw-r--r-- ./usr/share/doc/oomctl/examples/oomctl.conf
-rw-r--r-- ./usr/share/lintian/overrides/oomctl
-rw-r--r-- ./usr/share/man/man5/oomctl.conf.5.gz
-rw-r--r-- ./usr/share/man/man7/oomctl-policies.7.gz
-rw-r--r-- ./usr/share/man/man8/oomctl.8.gz
EOF
	x=$BATS_TEST_TMPDIR/x
	dpkg-deb -x "$DEB" "$x"
	"$x/usr/sbin/oomctl" --version | grep -q '^oomctl '
	grep -qx 'ExecStart=/usr/sbin/oomctl apply --skip-missing /etc/oomctl.conf' "$x/lib/systemd/system/oomctl.service"
	cmp "$TOP/etc/oomctl.conf.example" "$x/usr/share/doc/oomctl/examples/oomctl.conf"
	dpkg-deb -e "$DEB" "$x/DEBIAN"
	[ "$(cat "$x/DEBIAN/conffiles")" = /etc/bash_completion.d/oomctl.bash ]
	grep -q "deb-systemd-helper enable 'oomctl.service'" "$x/DEBIAN/postinst"
}

@test "lintian: no error or warning, and every override says why" {
	changes=${DEB%.deb}.changes
	run lintian --fail-on error,warning "$changes"
	echo "$output"
	[ "$status" -eq 0 ]
	# lintian's own note when run as root is the only line allowed.
	[ -z "$(grep -vx 'running with root privileges is not recommended!' <<<"$output")" ]
	# Each override right under a comment (or another override).
	run awk '/^#/ { c = 1; next } /^$/ { c = 0; next } !c { print FILENAME ":" FNR ": " $0 }' \
		"$TOP"/debian/*.lintian-overrides
	echo "$output"
	[ -z "$output" ]
}

@test "no file in common with systemd-oomd's package: dpkg unpacks both into one root, in either order" {
	oomd=$(oomd_deb)
	# Theirs has what would clash with ours under the same names.
	paths "$oomd" >"$BATS_TEST_TMPDIR/theirs"
	for f in ./usr/bin/oomctl ./usr/share/man/man1/oomctl.1.gz ./usr/share/bash-completion/completions/oomctl; do
		grep -qxF "$f" "$BATS_TEST_TMPDIR/theirs"
	done
	run env LC_ALL=C comm -12 "$BATS_TEST_TMPDIR/theirs" <(paths "$DEB")
	echo "in both: $output"
	[ -z "$output" ]
	unpacked "$BATS_TEST_TMPDIR/r1" "$oomd" "$DEB"
	unpacked "$BATS_TEST_TMPDIR/r2" "$DEB" "$oomd"
	# The check can fail: ours with a completion named oomctl is refused.
	bad=$BATS_TEST_TMPDIR/bad
	dpkg-deb -R "$DEB" "$bad"
	cp "$bad/usr/share/bash-completion/completions/oomctl.bash" "$bad/usr/share/bash-completion/completions/oomctl"
	sed -i '/^Version:/s/$/+bad/' "$bad/DEBIAN/control"
	dpkg-deb -b "$bad" "$bad.deb" >/dev/null
	run unpacked "$BATS_TEST_TMPDIR/r3" "$oomd" "$bad.deb"
	[ "$status" -ne 0 ]
	[[ $output == *"trying to overwrite '/usr/share/bash-completion/completions/oomctl', which is also in package systemd-oomd"* ]]
}

# complete_in ROOT COMPAT_DIR LINE... — "LINE => COMPLETIONS" for each LINE,
# completed by a fresh bash with bash-completion as a login shell has it,
# but looking for completions in ROOT's /usr/share and compat directory
# COMPAT_DIR; PATH has ROOT's /usr/sbin before its /usr/bin, as root's does.
complete_in() {
	local root=$1 compat=$2
	shift 2
	env -i HOME="$BATS_TEST_TMPDIR" PATH="$root/usr/sbin:$root/usr/bin:/usr/bin:/bin" \
		XDG_DATA_DIRS="$root/usr/share" BASH_COMPLETION_COMPAT_DIR="$compat" \
		OOMCTL_SYSTEMD_ROOT="$root" bash --norc --noprofile -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"
		shift
		for line; do echo "$line => $(completions "$line" | paste -sd " ")"; done' \
		_ "$TOP/tests/host/complete.bash" "$@"
}

@test "beside systemd-oomd, each oomctl is completed by its own completion" {
	oomd=$(oomd_deb)
	r=$BATS_TEST_TMPDIR/root
	dpkg-deb -x "$oomd" "$r"
	dpkg-deb -x "$DEB" "$r"
	run complete_in "$r" "$r/etc/bash_completion.d" "oomctl at" "oomctl e" "$r/usr/bin/oomctl d" \
		"$r/usr/sbin/oomctl det"
	echo "$output"
	[ "$output" = "oomctl at => attach
oomctl e => entry events explain
$r/usr/bin/oomctl d => dump
$r/usr/sbin/oomctl det => detach" ]
	# Why ours is in the compat directory too: bash-completion's on-demand
	# loader alone takes systemd-oomd's file, named oomctl, for ours.
	run complete_in "$r" /nonexistent "oomctl at" "oomctl d"
	echo "$output"
	[ "$output" = "oomctl at => 
oomctl d => dump" ]
}

@test "alone, ours is loaded on demand for oomctl, and the compat directory's file does nothing" {
	r=$BATS_TEST_TMPDIR/root
	dpkg-deb -x "$DEB" "$r"
	run complete_in "$r" /nonexistent "oomctl at"
	[ "$output" = "oomctl at => attach" ]
	run complete_in "$r" "$r/etc/bash_completion.d" "oomctl at"
	[ "$output" = "oomctl at => attach" ]
	run env OOMCTL_SYSTEMD_ROOT="$r" bash -c '. "$1"; complete -p oomctl' _ "$r/etc/bash_completion.d/oomctl.bash"
	[ "$status" -ne 0 ]
}
