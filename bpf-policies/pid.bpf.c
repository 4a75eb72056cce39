// SPDX-License-Identifier: GPL-2.0
/*
 * pid - a set of target processes (thread-group ids). The listed, eligible
 * task with the highest kernel badness dies; when none is eligible every
 * task is left to the kernel heuristic (NO_BPF_POLICY), never aborted.
 */
#include "policy.bpf.h"

OOMCTL_POLICY(
	.name = "pid",
	.summary = "a set of target processes; a listed one dies first",
	.entry_kind = OOMCTL_ENTRIES_PID_SET,
	.entry_map = "pid_targets",
	.entry = "pid",
	.entries = "pids",
	.rule = "pid",
	.rule_text = "listed pid",
);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOMCTL_MAX_PIDS);
	__type(key, __u32);	/* tgid */
	__type(value, __u32);	/* 1 */
} pid_targets SEC(".maps");

/*
 * Unlisted tasks compete by the heuristic until a listed one is SELECTed;
 * after that the kernel ignores them anyway (and pid_eval() answers NEXT
 * for them from the start when a listed one is sure to come). A listed task
 * the kernel could not kill is skipped (oomctl_rank()): the policy never
 * aborts, and its list leaves an OOM without a victim only in the race
 * described at enum listed_state, after which the kernel heuristic
 * decides.
 */
static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			const struct bpf_oom_task_info *t, struct oomctl_rank *r)
{
	__u32 tgid = task->tgid;

	if (!bpf_map_lookup_elem(&pid_targets, &tgid)) {
		r->class = OOMCTL_HEURISTIC;
		return;
	}
	r->class = OOMCTL_CANDIDATE;
	r->key2 = t->badness;
}

extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

/*
 * Will this scan offer a listed process the policy SELECTs? Then no unlisted
 * task can be the victim, and answering NEXT for them spares the kernel its
 * heuristic for each: without this, pid cost the hook plus the heuristic for
 * every task scanned before the listed one (make bench). And when none will
 * be offered (nothing listed in the OOMing cgroup, the common case), every
 * task is the heuristic's at once, without a look-up each. Asked at the
 * scan's first task, when oc->constraint is known, with the checks the
 * kernel makes before offering a task (bpf_oom_task_info(), and outside the
 * OOMing memcg). A cpuset or
 * mempolicy OOM offers only some tasks, which a program cannot tell: there
 * each task is asked. Should the listed process exit or turn ineligible in
 * the moment between this check and its turn, the scan finds no victim: a
 * memcg charge is retried and the next OOM decides without it, a global OOM
 * is rescanned by the kernel heuristic (the series' fallback). A process
 * listed, or turning eligible, after the check counts from the next OOM.
 */
enum listed_state {
	LISTED_ASK_EACH,	/* cpuset or mempolicy OOM: task by task */
	LISTED_OFFERED,		/* a listed process will be offered */
	LISTED_NONE,		/* none will be: all to the heuristic */
};

static __u64 listed_gen;	/* the scan_gen listed is for */
static enum listed_state listed;

struct listed_ctx {
	__u64 memcg_id;		/* the OOMing memcg's cgroup id; 0: global */
	bool found;
};

static long find_offered(struct bpf_map *map, __u32 *tgid, __u32 *one,
			 struct listed_ctx *c)
{
	struct task_struct *t = bpf_task_from_pid(*tgid);
	struct bpf_oom_task_info info = {};

	if (!t)
		return 0;
	if (!oomctl_task_info(t, 0, &info) &&
	    (!c->memcg_id || cgroup_within(task_cgroup_kn(t), c->memcg_id)))
		c->found = true;
	bpf_task_release(t);
	return c->found;	/* 1 stops the walk */
}

static __always_inline enum listed_state listed_check(struct oom_control *oc)
{
	struct listed_ctx c = {};

	switch (oc->constraint) {
	case CONSTRAINT_MEMCG:
		c.memcg_id = oc->memcg->css.cgroup->kn->id;
		if (!c.memcg_id)
			return LISTED_ASK_EACH;
		break;
	case CONSTRAINT_NONE:
		break;
	default:
		return LISTED_ASK_EACH;
	}
	bpf_for_each_map_elem(&pid_targets, find_offered, &c, 0);
	return c.found ? LISTED_OFFERED : LISTED_NONE;
}

SEC("fmod_ret/bpf_oom_evaluate_task")
int BPF_PROG(pid_eval, struct task_struct *task, struct oom_control *oc)
{
	__u32 tgid = task->tgid;

	if (listed_gen != scan_gen) {
		listed_gen = scan_gen;
		listed = listed_check(oc);
	}
	if (listed == LISTED_NONE)
		return NO_BPF_POLICY;
	if (listed == LISTED_OFFERED &&
	    !bpf_map_lookup_elem(&pid_targets, &tgid))
		return BPF_EVAL_NEXT;
	return oomctl_evaluate(task, oc);
}

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
