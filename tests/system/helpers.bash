# Helpers for the system tests (tests/system/*.bats), run in the Debian guest
# by tests/vm/run --system: oomctl is the installed package's
# (/usr/sbin/oomctl), workloads are systemd units. The 9p guest's helpers
# (wait_for, is_gone, reap, the test tools) are loaded first.

load ../vm/helpers

# What the tests start: transient services in work.slice's two children
# (named in the guest's /etc/oomctl.conf), all under one limit.
WORK=$CGROOT/work.slice
UNITS=(sys-batch.service sys-web.service)

# work_unit NAME SLICE [hog args...] — tests/tools/hog as the transient
# service NAME in SLICE (systemd-run, as an operator starts a workload);
# its ready file is $BATS_TEST_TMPDIR/NAME.ready.
work_unit() {
	local name=$1 slice=$2
	shift 2
	systemd-run --quiet --unit="$name" --slice="$slice" --property=OOMScoreAdjust=0 \
		"$HOG" --ready "$BATS_TEST_TMPDIR/$name.ready" "$@"
}

# journal_mark / journal_since [journalctl args...] — the journal from the
# mark on (a cursor: the kernel log's own mark, kmsg_mark, is filed by
# journald under the writer's name, not with the kernel's lines).
journal_mark() { JOURNAL_CURSOR=$(journalctl --quiet --lines=0 --show-cursor | sed -n 's/^-- cursor: //p'); }
journal_since() { journalctl --no-pager --quiet -o cat --after-cursor="$JOURNAL_CURSOR" "$@"; }
# journal_has TEXT [journalctl args...] — a line since the mark holds TEXT
# (for wait_for: journald files lines a moment after they are written).
journal_has() {
	local text=$1
	shift
	journal_since "$@" | grep -qF -- "$text"
}

# main_pid UNIT — the unit's main process (0 once it has none).
main_pid() { systemctl show --property=MainPID --value "$1"; }

# conf_backup / conf_restore — the tests edit /etc/oomctl.conf; each leaves
# it as the image has it.
conf_backup() { cp /etc/oomctl.conf "$BATS_TEST_TMPDIR/oomctl.conf.orig"; }
conf_restore() {
	[[ -e $BATS_TEST_TMPDIR/oomctl.conf.orig ]] || return 0
	cp "$BATS_TEST_TMPDIR/oomctl.conf.orig" /etc/oomctl.conf
}

# system_teardown — stop the test's units, lift the limit, put oomctl.service
# back as booted (started, the image's file applied).
system_teardown() {
	local rc=0
	systemctl stop "${UNITS[@]}" work-batch.slice work-web.slice 2>/dev/null
	systemctl reset-failed "${UNITS[@]}" 2>/dev/null
	if [[ -d $WORK ]]; then
		systemctl set-property --runtime work.slice MemoryMax=infinity ManagedOOMMemoryPressure=auto || rc=1
	fi
	conf_restore || rc=1
	if [[ $(systemctl is-active oomctl.service) == active ]]; then
		systemctl reload oomctl.service || rc=1
	else
		[[ $(oomctl -j status | jq -r .policy) == null ]] || oomctl detach >/dev/null || rc=1
		systemctl start oomctl.service || rc=1
	fi
	return "$rc"
}
