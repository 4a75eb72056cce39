/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.bpf.h - the policy contract: what every oomctl policy, bundled or
 * an operator's own, is built on. make install puts it, with oomctl.h, in
 * <oomctl/policy.bpf.h>; a policy's own build adds only vmlinux.h (bpftool
 * btf dump file /sys/kernel/btf/vmlinux format c). It holds the maps oomctl
 * reads (config, state, events), the program that names the policy, the
 * kill and failure trackers, the explain iterator, and the helpers that
 * decide eligibility and compute the kernel's badness score.
 *
 * A policy is three things after including this file (oomctl-policies(7),
 * "Writing a policy"): OOMCTL_POLICY(...), its description of itself,
 * which oomctl reads from the object; one decision function,
 * policy_rank(); and OOMCTL_EVALUATE(name), which defines its
 * bpf_oom_evaluate_task program around it. The same policy_rank() is what
 * the explain iterator (oomctl explain) calls for every process, so the
 * dry run and the real OOM cannot disagree about the rule.
 */
#ifndef OOMCTL_POLICY_BPF_H
#define OOMCTL_POLICY_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "oomctl.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * OOMCTL_POLICY(.name = "...", ...): the policy's description of itself
 * (struct oomctl_policy_desc, oomctl.h), which oomctl reads from the object
 * before loading it. Every policy declares exactly one; the programs never
 * read it.
 */
#define OOMCTL_POLICY(...)						\
const struct oomctl_policy_desc oomctl_policy				\
	SEC(OOMCTL_DESC_SEC) __attribute__((used)) = {			\
	.abi_version = OOMCTL_ABI_VERSION, __VA_ARGS__			\
}

/* pahole 1.24 emits no kfunc declarations into vmlinux.h. */
extern void set_oom_policy_name(struct oom_control *oc, const char *name,
				size_t name__sz) __ksym;
extern int bpf_oom_task_info(struct task_struct *task, __u64 totalpages,
			     struct bpf_oom_task_info *info) __ksym;

/* oomctl's skip reasons are the kernel's, RULE aside (oomctl.h). */
_Static_assert(OOMCTL_SKIP_UNKILLABLE == BPF_OOM_UNKILLABLE &&
	       OOMCTL_SKIP_VICTIM == BPF_OOM_VICTIM &&
	       OOMCTL_SKIP_NO_MM == BPF_OOM_NO_MM &&
	       OOMCTL_SKIP_ADJ_MIN == BPF_OOM_ADJ_MIN &&
	       OOMCTL_SKIP_REAPED == BPF_OOM_REAPED &&
	       OOMCTL_SKIP_VFORK == BPF_OOM_VFORK, "skip reasons");
_Static_assert(OOMCTL_RESUME_ROOM == MEMCG_OOM_RESUME_ROOM &&
	       OOMCTL_RESUME_KILL == MEMCG_OOM_RESUME_KILL &&
	       OOMCTL_RESUME_LAPSED == MEMCG_OOM_RESUME_LAPSED, "resume reasons");

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
	/* memcg OOM: how long the policy has kept it paused (ABORT), in ns */
	__u64 paused_ns;
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
 * The kernel's own view of @task as an OOM victim (the kfunc
 * bpf_oom_task_info()): its badness and memory in @t, found as the kernel
 * finds them (in any thread still holding the mm: a process whose main
 * thread has exited keeps its memory in another one). Returns why the
 * kernel would never kill it, an enum oomctl_skip, or 0 if it may. No
 * policy copies the kernel's rules: a copy can disagree with the kernel,
 * and a process that makes it disagree slips past the policy.
 */
static __always_inline __u32 oomctl_task_info(struct task_struct *task,
					      __u64 totalpages,
					      struct bpf_oom_task_info *t)
{
	if (bpf_oom_task_info(task, totalpages, t))
		return OOMCTL_SKIP_NO_MM;
	return t->ineligible;
}

static __always_inline void rank_skip(struct oomctl_rank *r, __u32 why)
{
	r->class = OOMCTL_SKIP;
	r->reason = why;
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
 * A numbered event, reserved in the ring buffer, or NULL when it is full
 * (counted: the reader sees the gap in the numbers).
 */
static __always_inline struct oomctl_event *event_new(struct oomctl_state *s,
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
	return e;
}

/* An event about the scan of @oc. */
static __always_inline struct oomctl_event *event_start(struct oomctl_state *s,
							 struct oom_control *oc,
							 __u32 kind)
{
	struct oomctl_event *e = event_new(s, kind);

	if (!e)
		return NULL;
	e->memcg_id = BPF_CORE_READ(oc, memcg, css.cgroup, kn, id);
	bpf_probe_read_kernel_str(e->policy_name, sizeof(e->policy_name),
				  oc->policy_name);
	e->candidates = scan_candidates;
	e->runner_up_key1 = runner_up_key1;
	return e;
}

/*
 * select_bad_process_end fires under oom_lock, so the window needs no
 * atomicity beyond the counter that oomctl may read at any time. A scan
 * the policy ran past its budget on is an overrun, not a failure of the
 * policy's rule: the kernel heuristic decided it.
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
	if (oc->bpf_overrun) {
		__sync_fetch_and_add(&s->stats.overruns, 1);
		e = event_start(s, oc, OOMCTL_EV_OVERRUN);
		if (e)
			bpf_ringbuf_submit(e, 0);
		return 0;
	}
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

	/* A pause's renewals are no news: its start and end are events. */
	if (scan_aborted && oc->memcg_paused_ns)
		return 0;
	e = event_start(s, oc, OOMCTL_EV_NO_VICTIM);
	if (!e)
		return 0;
	if (scan_aborted)
		e->rank.class = OOMCTL_ABORT;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * The kill in progress: oom_kill_process() is given the scan's victim in
 * oc->chosen; it kills it (and, with memory.oom.group, the rest of its
 * group) through __oom_kill_process(), unless the victim is already
 * exiting, which is only marked. All of it under oom_lock.
 */
static struct {
	__u64 memcg_id;			/* the OOMing memcg; 0: global */
	char policy_name[OOMCTL_NAME_LEN];	/* the name in force */
	__u32 victim;			/* the scan's victim, a tgid */
	bool done;			/* __oom_kill_process() killed it */
} kill;

/* An event about the kill in progress. */
static __always_inline struct oomctl_event *kill_event(struct oomctl_state *s,
							__u32 kind, __u32 tgid)
{
	struct oomctl_event *e = event_new(s, kind);

	if (!e)
		return NULL;
	e->memcg_id = kill.memcg_id;
	__builtin_memcpy(e->policy_name, kill.policy_name, sizeof(e->policy_name));
	e->candidates = scan_candidates;
	e->runner_up_key1 = runner_up_key1;
	e->pid = tgid;
	/* The scan's choice, unless the kernel killed someone else. */
	if (tgid == kill.victim && scan_selected && best_tgid == tgid)
		e->rank = best;
	else
		e->rank.class = OOMCTL_HEURISTIC;
	return e;
}

SEC("fentry/oom_kill_process")
int BPF_PROG(oomctl_kill_start, struct oom_control *oc, const char *message)
{
	kill.memcg_id = BPF_CORE_READ(oc, memcg, css.cgroup, kn, id);
	bpf_probe_read_kernel_str(kill.policy_name, sizeof(kill.policy_name),
				  oc->policy_name);
	kill.victim = oc->chosen->tgid;
	kill.done = false;
	return 0;
}

/* What the kernel really did: every kill, the victim's and its group's. */
SEC("fentry/__oom_kill_process")
int BPF_PROG(oomctl_kill, struct task_struct *victim, const char *message)
{
	struct oomctl_state *s = state();
	struct bpf_oom_task_info t = {};
	struct oomctl_victim *v;
	struct oomctl_event *e;
	__u32 tgid = victim->tgid;
	bool chosen;

	if (!s)
		return 0;
	chosen = !kill.done && tgid == kill.victim;
	if (chosen)
		kill.done = true;
	__sync_fetch_and_add(&s->stats.kills, 1);
	if (chosen) {
		v = &s->last_victim;
		v->seq = s->stats.kills;
		v->pid = tgid;
		v->cgroup_id = task_cgroup_kn(victim)->id;
		BPF_CORE_READ_STR_INTO(&v->comm, victim, comm);
		__builtin_memcpy(v->policy_name, kill.policy_name,
				 sizeof(v->policy_name));
	}

	e = kill_event(s, chosen ? OOMCTL_EV_KILL : OOMCTL_EV_GROUP_KILL, tgid);
	if (!e)
		return 0;
	e->cgroup_id = task_cgroup_kn(victim)->id;
	/* The memory the kernel finds, whichever thread holds it. */
	oomctl_task_info(victim, 0, &t);
	e->rss_pages = t.rss;
	BPF_CORE_READ_STR_INTO(&e->comm, victim, comm);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* The victim was already exiting: the kernel marked it and killed nobody. */
SEC("fexit/oom_kill_process")
int BPF_PROG(oomctl_kill_end, struct oom_control *oc, const char *message)
{
	struct oomctl_state *s = state();
	struct oomctl_event *e;

	if (kill.done || !s)
		return 0;
	__sync_fetch_and_add(&s->stats.marked, 1);
	e = kill_event(s, OOMCTL_EV_EXITING, kill.victim);
	if (!e)
		return 0;
	e->cgroup_id = BPF_CORE_READ(oc, chosen, cgroups, dfl_cgrp, kn, id);
	BPF_CORE_READ_STR_INTO(&e->comm, oc, chosen, comm);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* A memcg's OOMs paused by the policy (ABORT), and their end. */
SEC("tp_btf/memcg_oom_pause")
int BPF_PROG(oomctl_pause, struct mem_cgroup *memcg, struct oom_control *oc)
{
	struct oomctl_state *s = state();
	struct oomctl_event *e;

	if (!s)
		return 0;
	__sync_fetch_and_add(&s->stats.pauses, 1);
	e = event_start(s, oc, OOMCTL_EV_PAUSE);
	if (e)
		bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/memcg_oom_resume")
int BPF_PROG(oomctl_resume, struct mem_cgroup *memcg, __u64 paused_ns,
	     enum memcg_oom_resume_reason reason)
{
	struct oomctl_state *s = state();
	struct oomctl_config *cfg = config();
	struct oomctl_event *e;

	if (!s)
		return 0;
	e = event_new(s, OOMCTL_EV_RESUME);
	if (!e)
		return 0;
	e->memcg_id = memcg->css.cgroup->kn->id;
	if (cfg)
		__builtin_memcpy(e->policy_name, cfg->name, sizeof(e->policy_name));
	e->paused_ns = paused_ns;
	e->detail = reason;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * The policy's decision for one task (@t: its badness and memory as the
 * kernel sees them): fills @r (zeroed). A candidate the kernel would never
 * kill is turned into a skip afterwards (oomctl_rank()), so the rule need
 * not check; an abort stands whatever the task.
 */
static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			const struct bpf_oom_task_info *t, struct oomctl_rank *r);

/*
 * Does candidate @a (of process @a_pid) beat candidate @b (of @b_pid)? Ties
 * go to the lower pid, so that the scan's order (cgroup creation order,
 * in a memcg OOM) never decides, and explain can say who dies.
 */
static __always_inline bool rank_beats(const struct oomctl_rank *a, __u32 a_pid,
				       const struct oomctl_rank *b, __u32 b_pid)
{
	if (a->key1 != b->key1)
		return a->key1 < b->key1;
	if (a->key2 != b->key2)
		return a->key2 > b->key2;
	return a_pid < b_pid;
}

/*
 * The rank of @task: the policy's decision, unless the kernel would pass
 * the task over anyway, which is then the reason shown (an abort is about
 * the OOM, not the task: it stands). @t is filled (rss, badness) for the
 * caller.
 */
static __always_inline void oomctl_rank(struct task_struct *task,
					const struct oomctl_scope *sc,
					struct bpf_oom_task_info *t,
					struct oomctl_rank *r)
{
	__u32 skip = oomctl_task_info(task, sc->totalpages, t);

	policy_rank(task, sc, t, r);
	if (skip && r->class != OOMCTL_ABORT) {
		__builtin_memset(r, 0, sizeof(*r));
		rank_skip(r, skip);
	}
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
		.paused_ns = oc->memcg_paused_ns,
		.memo = true,
	};
	struct bpf_oom_task_info t = {};
	struct oomctl_rank r = {};
	__u32 tgid = task->tgid;

	oomctl_rank(task, &sc, &t, &r);
	if (r.class == OOMCTL_SKIP)
		return BPF_EVAL_NEXT;
	if (r.class == OOMCTL_HEURISTIC)
		return NO_BPF_POLICY;
	if (r.class == OOMCTL_ABORT) {
		scan_aborted = true;
		return BPF_EVAL_ABORT;
	}
	scan_candidates++;
	if (scan_selected && !rank_beats(&r, tgid, &best, best_tgid)) {
		if (r.key1 < runner_up_key1)
			runner_up_key1 = r.key1;
		return BPF_EVAL_NEXT;
	}
	if (scan_selected && best.key1 < runner_up_key1)
		runner_up_key1 = best.key1;
	best = r;
	best_tgid = tgid;
	return oomctl_select();
}

#define OOMCTL_EVALUATE(name)						\
SEC("fmod_ret/bpf_oom_evaluate_task")					\
int BPF_PROG(name, struct task_struct *task, struct oom_control *oc)	\
{									\
	return oomctl_evaluate(task, oc);				\
}

/*
 * oomctl explain: one record per process (the OOM scan visits thread-group
 * leaders) that an OOM of args->memcg_id (0: global) would scan, with the
 * rank the scan would give it: the kernel's reasons to pass it over (init
 * and kernel threads, a victim still dying, and oom_badness()'s), then
 * policy_rank()'s.
 */
SEC("iter/task")
int oomctl_explain(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct oomctl_explain_args *a;
	struct oomctl_explain_rec rec = {};
	struct oomctl_scope sc = { .key1_bound = ~0ULL };
	struct bpf_oom_task_info t = {};
	struct kernfs_node *kn;
	__u32 zero = 0;

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
	BPF_CORE_READ_STR_INTO(&rec.comm, task, comm);
	oomctl_rank(task, &sc, &t, &rec.rank);
	rec.rss_pages = t.rss;
	if (rec.rank.class != OOMCTL_SKIP)
		rec.badness = t.badness;
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

#endif /* OOMCTL_POLICY_BPF_H */
