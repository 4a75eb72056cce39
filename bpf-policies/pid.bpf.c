// SPDX-License-Identifier: GPL-2.0
/*
 * pid - a set of target processes (thread-group ids). The listed, eligible
 * task with the highest kernel badness dies; when none is eligible every
 * task is left to the kernel heuristic (NO_BPF_POLICY), never aborted.
 */
#include "common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOMCTL_MAX_PIDS);
	__type(key, __u32);	/* tgid */
	__type(value, __u32);	/* 1 */
} pid_targets SEC(".maps");

/*
 * Unlisted tasks compete by the heuristic until a listed one is SELECTed;
 * after that the kernel ignores them anyway. A listed task the kernel could
 * not kill is left to the heuristic too (which skips it): the policy never
 * aborts and never leaves an OOM without a victim because of its list.
 */
static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			struct oomctl_rank *r)
{
	__u32 tgid = task->tgid;

	if (!bpf_map_lookup_elem(&pid_targets, &tgid) || oomctl_ineligible(task)) {
		r->class = OOMCTL_HEURISTIC;
		return;
	}
	r->class = OOMCTL_CANDIDATE;
	r->reason = OOMCTL_RULE_PID;
	r->key2 = oomctl_badness(task, sc->totalpages);
}

OOMCTL_EVALUATE(pid_eval);

/*
 * Forget a process once its whole thread group has exited (do_exit() has
 * already decremented signal->live for this task), so that a recycled pid
 * is never a target by accident.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(pid_exit, struct task_struct *task)
{
	__u32 tgid;

	if (task->signal->live.counter != 0)
		return 0;
	tgid = task->tgid;
	bpf_map_delete_elem(&pid_targets, &tgid);
	return 0;
}
