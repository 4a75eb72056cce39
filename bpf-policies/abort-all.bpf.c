// SPDX-License-Identifier: GPL-2.0
/*
 * abort-all - "pause, don't kill": abort victim selection in memcg OOMs, so
 * that nothing is killed: what cgroup v1's memory.oom_control gave, for
 * cgroup v2. The kernel pauses the memcg (mm/memcontrol.c): a charge the
 * kernel makes fails, a faulting task sleeps until memory is uncharged or
 * the limit raised, asking again every second.
 *
 * A pause has a deadline, oomctl_config.max_pause_s (attach --max-pause,
 * 30 s by default, 0 for none): once a memcg's OOMs have been paused that
 * long (oom_control.memcg_paused_ns, kept by the kernel), its next OOM is
 * left to the kernel, which kills, and the pause ends.
 *
 * With OOMCTL_CFG_SCOPED only the OOMs of the cgroups in abort_scope and of
 * their descendants are aborted; every other OOM is left to the kernel.
 * Global OOMs are never aborted: the policy returns NO_BPF_POLICY for them
 * (the kernel series would fall back to its heuristic anyway, but a machine
 * out of memory must not even try to pause).
 */
#include "policy.bpf.h"

OOMCTL_POLICY(
	.name = "abort-all",
	.summary = "memcg OOMs kill nothing: the cgroup pauses until relieved",
	.entry_kind = OOMCTL_ENTRIES_CGROUP_SET,
	.flags = OOMCTL_DESC_SCOPING | OOMCTL_DESC_MAX_PAUSE,
	.entry_map = "abort_scope",
	.entry = "cgroup",
	.entries = "scope",
);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOMCTL_MAX_CGROUPS);
	__type(key, __u64);	/* cgroup v2 id whose OOMs are aborted */
	__type(value, __u32);	/* 1 */
} abort_scope SEC(".maps");

/* The same for every task: the OOM's memcg, and how long it was paused. */
static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			const struct bpf_oom_task_info *t, struct oomctl_rank *r)
{
	struct oomctl_config *cfg = config();
	__u64 from;
	__u32 one;

	if (!sc->memcg_kn || !cfg ||
	    ((cfg->flags & OOMCTL_CFG_SCOPED) &&
	     !cgroup_entry(sc, &abort_scope, sc->memcg_kn, &from, &one)) ||
	    (cfg->max_pause_s &&
	     sc->paused_ns >= cfg->max_pause_s * 1000000000ULL)) {
		r->class = OOMCTL_HEURISTIC;
		return;
	}
	r->class = OOMCTL_ABORT;
}

OOMCTL_EVALUATE(abort_all_eval);

OOMCTL_FORGET_REMOVED_CGROUPS(abort_all_rmdir, abort_scope);
