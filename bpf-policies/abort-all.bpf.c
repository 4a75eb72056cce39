// SPDX-License-Identifier: GPL-2.0
/*
 * abort-all - "pause, don't kill": abort victim selection in memcg OOMs, so
 * that nothing is killed and the charging task retries (killably) until
 * memory is freed, the limit is raised or it is killed: what cgroup v1's
 * memory.oom_control gave, for cgroup v2.
 *
 * With OOMCTL_CFG_SCOPED only the OOMs of the cgroups in abort_scope and of
 * their descendants are aborted; every other OOM is left to the kernel.
 * Global OOMs are never aborted: the policy returns NO_BPF_POLICY for them
 * (the kernel series would fall back to its heuristic anyway, but a machine
 * out of memory must not even try to pause).
 */
#include "common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOMCTL_MAX_CGROUPS);
	__type(key, __u64);	/* cgroup v2 id whose OOMs are aborted */
	__type(value, __u32);	/* 1 */
} abort_scope SEC(".maps");

/* The same for every task: the OOM's memcg decides. */
static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			struct oomctl_rank *r)
{
	struct oomctl_config *cfg = config();
	__u64 from;
	__u32 one;

	if (!sc->memcg_kn ||
	    (cfg && (cfg->flags & OOMCTL_CFG_SCOPED) &&
	     !cgroup_entry(sc, &abort_scope, sc->memcg_kn, &from, &one))) {
		r->class = OOMCTL_HEURISTIC;
		return;
	}
	r->class = OOMCTL_ABORT;
}

OOMCTL_EVALUATE(abort_all_eval);

OOMCTL_FORGET_REMOVED_CGROUPS(abort_all_rmdir, abort_scope);
