/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.bpf.h - BPF code every oomctl policy shares: the maps oomctl reads
 * (config, state), the program that names the policy, the kill and failure
 * trackers, and the helpers that decide eligibility and compute the kernel's
 * badness score. A policy includes this once and adds its evaluate program.
 *
 * A policy is one decision function, policy_rank(), defined after
 * including this file, and OOMCTL_EVALUATE(name), which defines its
 * bpf_oom_evaluate_task program around it. The same policy_rank() is what
 * the explain iterator (oomctl explain) calls for every process, so the
 * dry run and the real OOM cannot disagree about the rule.
 */
#ifndef OOMCTL_COMMON_BPF_H
#define OOMCTL_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "oomctl.h"

char LICENSE[] SEC("license") = "GPL";

/* pahole 1.24 emits no kfunc declarations into vmlinux.h. */
extern void set_oom_policy_name(struct oom_control *oc, const char *name,
				size_t name__sz) __ksym;

/*
 * Kernel constants that are macros, hence not in BTF: include/uapi/linux/
 * oom.h, include/linux/sched/coredump.h, and x86's page size.
 */
#define OOM_SCORE_ADJ_MIN	(-1000)
#define MMF_OOM_SKIP		21
#define OOMCTL_PAGE_SHIFT	12

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oomctl_config);
} oomctl_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oomctl_state);
} oomctl_state SEC(".maps");

/* Every decision, for oomctl events; kept while nobody reads. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, OOMCTL_EVENTS_BYTES);
} oomctl_events SEC(".maps");

/*
 * The last event oomctl events showed (written by oomctl): a first event
 * numbered beyond it means the ones between were dropped.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} oomctl_events_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oomctl_explain_args);
} oomctl_explain_args SEC(".maps");

/*
 * Per-scan state. OOM handling is serialised by oom_lock, so plain globals
 * are enough; bpf_set_policy_name() starts every out_of_memory().
 */
static bool scan_selected;	/* a candidate was SELECTed */
static bool scan_aborted;	/* the policy returned BPF_EVAL_ABORT */
static struct oomctl_rank best;	/* the SELECTed candidate */
static __u32 best_tgid;
static __u32 scan_candidates;
static __u64 runner_up_key1;	/* the best other candidate's key1 */
static __u64 scan_gen;		/* numbers the scans, see cg_memo */

/* What an OOM is about, as the decision function sees it. */
struct oomctl_scope {
	struct kernfs_node *memcg_kn;	/* the OOMing memcg's; NULL: global */
	__u64 totalpages;		/* oom_control.totalpages */
	/*
	 * A candidate whose key1 is above this cannot win: the policy may
	 * leave its key2 at 0 (explain: ~0, every key computed).
	 */
	__u64 key1_bound;
	bool memo;			/* cgroup_entry() may use its memo */
};

static __always_inline struct oomctl_state *state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&oomctl_state, &zero);
}

static __always_inline struct oomctl_config *config(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&oomctl_config, &zero);
}

/*
 * Would the kernel kill @task if we SELECTed it? 0 if so, else why not (an
 * enum oomctl_skip). Mirrors oom_badness()'s LONG_MIN cases: no mm,
 * oom_score_adj -1000, an mm already given up on (MMF_OOM_SKIP, also
 * checked on the task's signal->oom_mm so that a victim still dying is
 * never picked again), in the middle of vfork(). The kernel would turn such
 * a SELECT into NEXT anyway; checking here keeps the policy's own idea of
 * its best candidate in step with the kernel's.
 */
static __always_inline __u32 oomctl_ineligible(struct task_struct *task)
{
	struct mm_struct *mm = task->mm;
	struct mm_struct *oom_mm;

	if (!mm)
		return OOMCTL_SKIP_NO_MM;
	if (task->signal->oom_score_adj == OOM_SCORE_ADJ_MIN)
		return OOMCTL_SKIP_ADJ_MIN;
	if (mm->flags & (1UL << MMF_OOM_SKIP))
		return OOMCTL_SKIP_REAPED;
	oom_mm = task->signal->oom_mm;
	if (oom_mm && (oom_mm->flags & (1UL << MMF_OOM_SKIP)))
		return OOMCTL_SKIP_REAPED;
	if (task->vfork_done && task->real_parent->mm == mm)
		return OOMCTL_SKIP_VFORK;
	return 0;
}

static __always_inline void rank_skip(struct oomctl_rank *r, __u32 why)
{
	r->class = OOMCTL_SKIP;
	r->reason = why;
}

/* get_mm_counter() is percpu_counter_read_positive() of the same counter. */
#define mm_counter(mm, member) ({					\
	long __v = (mm)->rss_stat[member].count;			\
	__v > 0 ? __v : 0;						\
})

/*
 * oom_badness() for an eligible task: rss + swap entries + page tables in
 * pages, plus oom_score_adj in units of totalpages / 1000. Used where the
 * policy must rank tasks the way the kernel would, because a heuristic
 * (NO_BPF_POLICY) task can never replace a SELECTed one.
 */
static __always_inline long oomctl_badness(struct task_struct *task,
					   __u64 totalpages)
{
	struct mm_struct *mm = task->mm;
	long adj = task->signal->oom_score_adj;
	long points;

	points = mm_counter(mm, MM_FILEPAGES) + mm_counter(mm, MM_ANONPAGES) +
		 mm_counter(mm, MM_SHMEMPAGES) + mm_counter(mm, MM_SWAPENTS) +
		 (mm->pgtables_bytes.counter >> OOMCTL_PAGE_SHIFT);
	return points + adj * (long)(totalpages / 1000);
}

/* What rss-slice ranks by, and what events and explain show. */
static __always_inline long oomctl_rss(struct task_struct *task)
{
	struct mm_struct *mm = task->mm;

	if (!mm)
		return 0;
	return mm_counter(mm, MM_ANONPAGES) + mm_counter(mm, MM_FILEPAGES) +
	       mm_counter(mm, MM_SHMEMPAGES);
}

static __always_inline int oomctl_select(void)
{
	struct oomctl_state *s;

	if (!scan_selected) {
		scan_selected = true;
		s = state();
		if (s)
			__sync_fetch_and_add(&s->stats.selections, 1);
	}
	return BPF_EVAL_SELECT;
}

SEC("fentry/bpf_set_policy_name")
int BPF_PROG(oomctl_name, struct oom_control *oc)
{
	struct oomctl_config *cfg = config();
	struct oomctl_state *s = state();

	scan_gen++;
	scan_selected = false;
	scan_aborted = false;
	scan_candidates = 0;
	runner_up_key1 = ~0ULL;
	if (s)
		__sync_fetch_and_add(&s->stats.invocations, 1);
	/* A map value is writable memory, as the kfunc's buffer must be. */
	if (cfg)
		set_oom_policy_name(oc, cfg->name, sizeof(cfg->name));
	return 0;
}

/*
 * The entry of @map for @kn's cgroup or for its nearest ancestor with one
 * (a cgroup's kernfs directory's parent is its parent cgroup's), or NULL;
 * the id of the cgroup whose entry it is in *@from. Every policy keyed by
 * cgroup v2 id follows the tree this way.
 */
static __always_inline void *lookup_cgroup_up(void *map, struct kernfs_node *kn,
					      __u64 *from)
{
	for (int i = 0; i < OOMCTL_MAX_DEPTH && kn; i++) {
		__u64 id = kn->id;
		void *v = bpf_map_lookup_elem(map, &id);

		if (v) {
			*from = id;
			return v;
		}
		kn = kn->parent;
	}
	return NULL;
}

/*
 * A memo of cgroup_entry() for one OOM scan. A memcg OOM visits the tasks
 * of a cgroup one after another and they all get the same answer: walking
 * the tree (a hash lookup per level) once per cgroup rather than once per
 * task is most of what cgprio and rss-slice save (make bench). An entry is
 * good for the scan it was made in only (scan_gen, bumped by oomctl_name()
 * at every out_of_memory()), so a map edit counts from the next OOM on, as
 * before. Only the evaluate program uses it: scans are serialised by
 * oom_lock, so it needs no locking; explain walks the tree every time.
 */
#define CG_MEMO_SLOTS	64	/* a power of two */

struct cg_memo {
	__u64 gen;
	__u64 id;	/* the task's cgroup */
	__u64 from;	/* the cgroup whose entry applies, 0: none */
	__u32 value;
};

static struct cg_memo cg_memo[CG_MEMO_SLOTS];

/*
 * The u32 value of @map's entry for @kn's cgroup or its nearest ancestor
 * with one, into *@value, and that cgroup's id into *@from; false (and 0s)
 * if there is none.
 */
static __always_inline bool cgroup_entry(const struct oomctl_scope *sc,
					 void *map, struct kernfs_node *kn,
					 __u64 *from, __u32 *value)
{
	__u64 id = kn ? kn->id : 0;
	struct cg_memo *m = NULL;
	__u32 *v;

	*from = 0;
	if (sc->memo && id) {
		m = &cg_memo[id & (CG_MEMO_SLOTS - 1)];
		if (m->gen == scan_gen && m->id == id) {
			*from = m->from;
			*value = m->value;
			return m->from != 0;
		}
	}
	v = lookup_cgroup_up(map, kn, from);
	*value = v ? *v : 0;
	if (m) {
		m->gen = scan_gen;
		m->id = id;
		m->from = *from;
		m->value = *value;
	}
	return v;
}

static __always_inline struct kernfs_node *task_cgroup_kn(struct task_struct *task)
{
	return task->cgroups->dfl_cgrp->kn;
}

/*
 * @kn itself or its ancestor whose cgroup id is @id, or NULL: is a cgroup
 * inside the subtree (an OOMing memcg's, say) of cgroup @id?
 */
static __always_inline struct kernfs_node *cgroup_within(struct kernfs_node *kn,
							 __u64 id)
{
	for (int i = 0; i < OOMCTL_MAX_DEPTH && kn; i++) {
		if (kn->id == id)
			return kn;
		kn = kn->parent;
	}
	return NULL;
}

/*
 * OOMCTL_FORGET_REMOVED_CGROUPS(prog, map) defines a program that deletes a
 * cgroup's entry from @map when the cgroup is removed, so that a map keyed
 * by cgroup id holds live cgroups only and never fills with history. Ids
 * are never reused, so a late delete cannot hit a newer cgroup; oomctl
 * re-checks that the cgroup still exists after each update it makes, which
 * covers an rmdir racing with it.
 */
#define OOMCTL_FORGET_REMOVED_CGROUPS(prog, map)			\
SEC("tp_btf/cgroup_rmdir")						\
int BPF_PROG(prog, struct cgroup *cgrp, const char *path)		\
{									\
	__u64 id = cgrp->kn->id;					\
									\
	bpf_map_delete_elem(&map, &id);					\
	return 0;							\
}

/*
 * A numbered event for @oc, reserved in the ring buffer, or NULL when it is
 * full (counted: the reader sees the gap in the numbers).
 */
static __always_inline struct oomctl_event *event_start(struct oomctl_state *s,
							 struct oom_control *oc,
							 __u32 kind)
{
	__u64 seq = __sync_add_and_fetch(&s->stats.events, 1);
	struct oomctl_event *e;

	e = bpf_ringbuf_reserve(&oomctl_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&s->stats.events_dropped, 1);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->seq = seq;
	e->time_ns = bpf_ktime_get_boot_ns();
	e->kind = kind;
	e->memcg_id = BPF_CORE_READ(oc, memcg, css.cgroup, kn, id);
	bpf_probe_read_kernel_str(e->policy_name, sizeof(e->policy_name),
				  oc->policy_name);
	e->candidates = scan_candidates;
	e->runner_up_key1 = runner_up_key1;
	return e;
}

/*
 * select_bad_process_end fires under oom_lock, so the window needs no
 * atomicity beyond the counter that oomctl may read at any time.
 */
SEC("tp_btf/select_bad_process_end")
int BPF_PROG(oomctl_fail, struct oom_control *oc)
{
	struct oomctl_state *s = state();
	__u64 now = bpf_ktime_get_boot_ns();
	const __u64 window = OOMCTL_FAIL_WINDOW_S * 1000000000ULL;
	struct oomctl_failwin *w;
	struct oomctl_event *e;

	if (!s)
		return 0;
	__sync_fetch_and_add(&s->stats.failures, 1);
	w = &s->failwin;
	if (!w->start_ns || now - w->start_ns >= window) {
		/* The old window counts as "previous" only if it just ended. */
		w->prev_count = w->start_ns && now - w->start_ns < 2 * window ?
				w->count : 0;
		w->start_ns = now;
		w->count = 0;
	}
	w->count++;
	w->last_ns = now;

	e = event_start(s, oc, OOMCTL_EV_NO_VICTIM);
	if (!e)
		return 0;
	if (scan_aborted)
		e->rank.class = OOMCTL_ABORT;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * Every kill goes through oom_kill_process() with the victim in oc->chosen
 * and the name in force in oc->policy_name: record both, so that oomctl can
 * show which name the kernel really printed.
 */
SEC("fentry/oom_kill_process")
int BPF_PROG(oomctl_kill, struct oom_control *oc, const char *message)
{
	struct oomctl_state *s = state();
	struct task_struct *victim = oc->chosen;
	struct oomctl_victim *v;
	struct oomctl_event *e;

	if (!s)
		return 0;
	v = &s->last_victim;
	v->seq = __sync_add_and_fetch(&s->stats.kills, 1);
	v->pid = victim->tgid;
	v->cgroup_id = task_cgroup_kn(victim)->id;
	BPF_CORE_READ_STR_INTO(&v->comm, victim, comm);
	bpf_probe_read_kernel_str(v->policy_name, sizeof(v->policy_name),
				  oc->policy_name);

	e = event_start(s, oc, OOMCTL_EV_KILL);
	if (!e)
		return 0;
	e->pid = v->pid;
	e->cgroup_id = v->cgroup_id;
	e->rss_pages = oomctl_rss(victim);
	__builtin_memcpy(e->comm, v->comm, sizeof(e->comm));
	/* The scan's choice, unless the kernel killed someone else. */
	if (scan_selected && best_tgid == v->pid)
		e->rank = best;
	else
		e->rank.class = OOMCTL_HEURISTIC;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* The policy's decision for one task: fills @r (zeroed). */
static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			struct oomctl_rank *r);

/* Does candidate @a beat candidate @b? */
static __always_inline bool rank_beats(const struct oomctl_rank *a,
				       const struct oomctl_rank *b)
{
	return a->key1 < b->key1 || (a->key1 == b->key1 && a->key2 > b->key2);
}

/*
 * The verdict for @task: the policy's rank, turned into the hook's return
 * values. A candidate is SELECTed when it beats the best so far: a task
 * the kernel scores itself (NO_BPF_POLICY) could never replace a SELECT,
 * so the policy must rank every candidate itself.
 */
static __always_inline int oomctl_evaluate(struct task_struct *task,
					   struct oom_control *oc)
{
	struct oomctl_scope sc = {
		.memcg_kn = oc->memcg ? oc->memcg->css.cgroup->kn : NULL,
		.totalpages = oc->totalpages,
		.key1_bound = scan_selected ? best.key1 : ~0ULL,
		.memo = true,
	};
	struct oomctl_rank r = {};

	policy_rank(task, &sc, &r);
	if (r.class == OOMCTL_SKIP)
		return BPF_EVAL_NEXT;
	if (r.class == OOMCTL_HEURISTIC)
		return NO_BPF_POLICY;
	if (r.class == OOMCTL_ABORT) {
		scan_aborted = true;
		return BPF_EVAL_ABORT;
	}
	scan_candidates++;
	if (scan_selected && !rank_beats(&r, &best)) {
		if (r.key1 < runner_up_key1)
			runner_up_key1 = r.key1;
		return BPF_EVAL_NEXT;
	}
	if (scan_selected && best.key1 < runner_up_key1)
		runner_up_key1 = best.key1;
	best = r;
	best_tgid = task->tgid;
	return oomctl_select();
}

#define OOMCTL_EVALUATE(name)						\
SEC("fmod_ret/bpf_oom_evaluate_task")					\
int BPF_PROG(name, struct task_struct *task, struct oom_control *oc)	\
{									\
	return oomctl_evaluate(task, oc);				\
}

#define PF_KTHREAD_FLAG	0x00200000	/* include/linux/sched.h PF_KTHREAD */

/*
 * oomctl explain: one record per process (the OOM scan visits thread-group
 * leaders) that an OOM of args->memcg_id (0: global) would scan, with the
 * rank policy_rank() gives it, after the kernel's own reasons to pass a
 * task over: init and kernel threads, a victim still dying (the kernel
 * waits for it instead of choosing), and oomctl_ineligible()'s.
 */
SEC("iter/task")
int oomctl_explain(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct oomctl_explain_args *a;
	struct oomctl_explain_rec rec = {};
	struct oomctl_scope sc = { .key1_bound = ~0ULL };
	struct kernfs_node *kn;
	struct mm_struct *oom_mm;
	__u32 zero = 0, skip;

	if (!task || task->pid != task->tgid)
		return 0;
	a = bpf_map_lookup_elem(&oomctl_explain_args, &zero);
	if (!a)
		return 0;
	kn = task_cgroup_kn(task);
	rec.cgroup_id = kn->id;
	/* A memcg OOM scans the memcg's tasks: find it among the ancestors. */
	if (a->memcg_id) {
		sc.memcg_kn = cgroup_within(kn, a->memcg_id);
		if (!sc.memcg_kn)
			return 0;
	}
	sc.totalpages = a->totalpages;

	rec.pid = task->tgid;
	rec.oom_score_adj = task->signal->oom_score_adj;
	rec.rss_pages = oomctl_rss(task);
	BPF_CORE_READ_STR_INTO(&rec.comm, task, comm);
	oom_mm = task->signal->oom_mm;
	if ((task->flags & PF_KTHREAD_FLAG) || task->tgid == 1)
		rank_skip(&rec.rank, OOMCTL_SKIP_UNKILLABLE);
	else if (oom_mm && !(oom_mm->flags & (1UL << MMF_OOM_SKIP)))
		rank_skip(&rec.rank, OOMCTL_SKIP_VICTIM);
	else if ((skip = oomctl_ineligible(task)))
		rank_skip(&rec.rank, skip);
	else
		policy_rank(task, &sc, &rec.rank);
	if (rec.rank.class != OOMCTL_SKIP)
		rec.badness = oomctl_badness(task, sc.totalpages);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

#endif /* OOMCTL_COMMON_BPF_H */
