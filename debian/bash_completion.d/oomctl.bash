# oomctl(8) bash completion, for systemd-oomd's company.   -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0
#
# bash-completion sources this directory at every shell start. oomctl's
# completion is /usr/share/bash-completion/completions/oomctl.bash, which
# bash-completion loads on demand for `oomctl`, but only when no file named
# oomctl comes first: systemd-oomd's completion for its /usr/bin/oomctl has
# that name, so with both packages installed every oomctl, ours in
# /usr/sbin too, would get systemd's. Then ours is loaded here, before any
# on-demand load, and hands systemd's oomctl to systemd's completion itself.
# Without systemd-oomd this does nothing. OOMCTL_SYSTEMD_ROOT: both
# packages' files under this directory instead of / (for the tests).
_oomctl_dir=${OOMCTL_SYSTEMD_ROOT-}/usr/share/bash-completion/completions
if [[ -r $_oomctl_dir/oomctl && -r $_oomctl_dir/oomctl.bash ]]; then
	# shellcheck source=../../completion/oomctl.bash
	. "$_oomctl_dir/oomctl.bash"
fi
unset _oomctl_dir
