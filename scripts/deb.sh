#!/usr/bin/env bash
# Build the Debian package of oomctl (debian/) and print the .deb's path.
#
#   scripts/deb.sh OUTDIR
#
# dpkg-buildpackage writes its results beside the source tree, and its clean
# step runs `make clean`: so it runs in a copy of the tree, OUTDIR/oomctl-
# VERSION (the work tree as it is, less build/ and .git), and the .deb lands
# in OUTDIR. It builds no kernel and runs no apt: a missing build dependency
# is dpkg-checkbuilddeps' error (`make deps` installs them).
#
# The version is oomctl's own (OOMCTL_VERSION in src/main.c), then
# ~gitDATE.HASH of the commit (its date: the same commit gives the same
# version), +dirty if the work tree has changes: 0.1~git20261205.4dccff5.
# The ~ sorts it before the release 0.1. The package is native (debian/
# lives in this repository); its debian/changelog is written here, one
# entry for the snapshot, since CHANGELOG.md is the changelog and the
# package carries it too.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "deb: $*" >&2; exit 1; }
(($# == 1)) || { echo "usage: scripts/deb.sh OUTDIR" >&2; exit 2; }
out=$1

version=$(sed -n 's/^#define OOMCTL_VERSION "\(.*\)"$/\1/p' "$top/src/main.c")
[[ -n $version ]] || die "no OOMCTL_VERSION in src/main.c"
# The commit's date as the entry's date, so that the same commit builds the
# same package; outside git, the version alone and the time now.
date=$(date -R)
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	version+="~git$(git -C "$top" log -1 --date=format:%Y%m%d --format=%cd.%h)"
	date=$(git -C "$top" log -1 --date=rfc2822 --format=%cd)
	[[ -z $(git -C "$top" status --porcelain) ]] || version+=+dirty
fi

src=$out/oomctl-$version
rm -rf "$out"
mkdir -p "$src"
tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$src" -xf -
maintainer=$(sed -n 's/^Maintainer: //p' "$top/debian/control")
cat >"$src/debian/changelog" <<EOF
oomctl ($version) unstable; urgency=medium

  * A snapshot of oomctl: see /usr/share/doc/oomctl/CHANGELOG.md.gz.

 -- $maintainer  $date
EOF

log=$out/build.log
echo "deb: building oomctl $version in $src (log: $log)" >&2
(cd "$src" && dpkg-buildpackage -b -us -uc) >"$log" 2>&1 || {
	tail -20 "$log" >&2
	die "dpkg-buildpackage failed (see $log)"
}
deb=$out/oomctl_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
[[ -f $deb ]] || die "dpkg-buildpackage made no $deb (see $log)"
echo "$deb"
