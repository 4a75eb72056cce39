/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oomctl.h - the one header shared by the BPF policies (bpf-policies/) and
 * oomctl (src/): limits, policy ids and the layout of every map value that
 * user space reads or writes. Plain C with fixed-width types only, so that it
 * compiles both against vmlinux.h (BPF) and against the libc headers.
 *
 * The verdicts (enum bpf_oom_eval_result) are not here: BPF code takes them
 * from the kernel's BTF through vmlinux.h, and user space never needs them.
 */
#ifndef OOMCTL_H
#define OOMCTL_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* A policy name: 15 bytes and the NUL, the size of oom_control.policy_name. */
#define OOMCTL_NAME_LEN		16

/* cgprio priorities: lower dies first. */
#define OOMCTL_PRIO_MIN		0
#define OOMCTL_PRIO_MAX		1000

/* Map sizes. Entries of removed cgroups and exited processes are deleted
 * by the policies themselves, so these bound live objects, not history.
 */
#define OOMCTL_MAX_CGROUPS	4096
#define OOMCTL_MAX_PIDS		1024

/* cgprio looks this many levels up from a task's cgroup for an entry. */
#define OOMCTL_MAX_DEPTH	32

/*
 * A policy describes itself in its object: one struct oomctl_policy_desc in
 * ELF section OOMCTL_DESC_SEC (declared with OOMCTL_POLICY(), policy.bpf.h).
 * oomctl learns everything it knows of a policy from there (its name, its
 * entries, the words for its rule) and no table in oomctl names a policy.
 * Every string is NUL-terminated within its array.
 */
#define OOMCTL_DESC_SEC		".oomctl.policy"

/* The entries a policy keeps in its map (desc.entry_map), keyed by cgroup
 * v2 id (__u64) or by thread-group id (__u32), with __u32 values.
 */
enum oomctl_entry_kind {
	OOMCTL_ENTRIES_NONE = 0,	/* no map of entries */
	OOMCTL_ENTRIES_CGROUP_VALUE,	/* cgroup -> desc.value_min..value_max */
	OOMCTL_ENTRIES_CGROUP_SET,	/* cgroup -> 1 */
	OOMCTL_ENTRIES_PID_SET,		/* process -> 1 */
	OOMCTL_NR_ENTRY_KINDS
};

/* oomctl_policy_desc.flags */
#define OOMCTL_DESC_DEFAULT	(1U << 0)	/* CGROUP_VALUE: a cgroup with no
						 * entry takes config.default_prio
						 * (attach --default-ENTRY) */
#define OOMCTL_DESC_SCOPING	(1U << 1)	/* CGROUP_SET: a set given at
						 * attach scopes the policy
						 * (OOMCTL_CFG_SCOPED) */
#define OOMCTL_DESC_MAX_PAUSE	(1U << 2)	/* it pauses memcgs (ABORT):
						 * config.max_pause_s */
#define OOMCTL_DESC_RULE_VALUE	(1U << 3)	/* a candidate's rank.key1 is
						 * its entry's value */
#define OOMCTL_DESC_REF_SET_ON	(1U << 4)	/* rank.ref is the cgroup the
						 * value was set on, 0 for the
						 * default */
#define OOMCTL_DESC_EXACT	(1U << 5)	/* a cgroup's entry is its own
						 * only: its descendants do not
						 * share it */
#define OOMCTL_DESC_FLAGS	0x3f

struct oomctl_policy_desc {
	__u32 abi_version;	/* OOMCTL_ABI_VERSION */
	__u32 entry_kind;	/* enum oomctl_entry_kind */
	__u32 flags;		/* OOMCTL_DESC_* */
	__u32 value_min;	/* CGROUP_VALUE: the values allowed */
	__u32 value_max;
	char name[OOMCTL_NAME_LEN];	/* "cgprio": attach's word, the default
					 * policy_name */
	char summary[72];		/* one line, for oomctl list */
	/*
	 * Its entries: the map @entry_map, edited with the word @entry
	 * (attach --ENTRY, apply's "ENTRY ..." lines, the key of a value),
	 * listed under @entries in status -j.
	 */
	char entry_map[16];
	char entry[16];
	char entries[16];
	/*
	 * Its rule, in events and explain: "rule": @rule in -j, @rule_text
	 * in words, then (if @ref_key is set) rank.ref's cgroup under
	 * @ref_key.
	 */
	char rule[16];
	char rule_text[32];
	char ref_key[16];
};

/* oomctl_config.source: where the attached policy's object came from. */
enum oomctl_source {
	OOMCTL_SOURCE_BUNDLED = 0,	/* built into oomctl */
	OOMCTL_SOURCE_FILE,		/* oomctl attach PATH.bpf.o */
};

/* oomctl_config.flags */
#define OOMCTL_CFG_SCOPED	(1U << 0)	/* abort-all: only abort_scope OOMs */

/*
 * oomctl status warns when selection failed at least OOMCTL_FAIL_WARN times
 * within one window of OOMCTL_FAIL_WINDOW_S seconds: a policy that keeps
 * failing can leave a cgroup stalled (or, in a global OOM, makes the kernel
 * fall back to its own heuristic every time).
 */
#define OOMCTL_FAIL_WINDOW_S	60
#define OOMCTL_FAIL_WARN	10

/*
 * abort-all's default --max-pause: a memcg paused this long gets the
 * kernel's kill. 0 in oomctl_config.max_pause_s means no deadline.
 */
#define OOMCTL_MAX_PAUSE_DEFAULT_S	30
#define OOMCTL_MAX_PAUSE_MAX_S		86400

/* Bumped whenever a layout below changes incompatibly. */
#define OOMCTL_ABI_VERSION	5

/*
 * The one entry of map oomctl_config, written by oomctl before the programs
 * are attached. The name program passes @name straight to the kfunc, which
 * needs writable memory: that is why this is a map and not .rodata.
 */
struct oomctl_config {
	__u32 abi_version;		/* OOMCTL_ABI_VERSION */
	__u32 source;			/* enum oomctl_source */
	char name[OOMCTL_NAME_LEN];	/* policy_name for the OOM report */
	__u32 default_prio;		/* cgprio: prio of cgroups with no entry */
	__u32 flags;			/* OOMCTL_CFG_* */
	__u32 max_pause_s;		/* abort-all: pause deadline; 0: none */
	__u32 pad;
	/* The attached policy's description, copied from its object. */
	struct oomctl_policy_desc desc;
};

/* Counters, updated atomically by the programs. */
struct oomctl_stats {
	__u64 invocations;	/* out_of_memory() calls seen (bpf_set_policy_name) */
	__u64 selections;	/* scans in which the policy chose a victim */
	__u64 kills;		/* tasks killed (__oom_kill_process()), as the
				 * kernel's oom_kill counts them */
	__u64 failures;		/* oom:select_bad_process_end: no victim chosen */
	__u64 events;		/* events numbered (oomctl_event.seq of the last) */
	__u64 events_dropped;	/* of those, not recorded: the ring buffer was full */
	__u64 marked;		/* victims already exiting: marked, not killed */
	__u64 overruns;		/* scans the policy ran past the kernel's budget */
	__u64 pauses;		/* memcg OOM pauses started (oom:memcg_oom_pause) */
};

/* The last task oom_kill_process() was given. */
struct oomctl_victim {
	__u64 seq;		/* stats.kills when recorded; 0: none yet */
	__u64 cgroup_id;	/* its cgroup v2 id */
	__u32 pid;		/* thread-group id */
	__u32 pad;
	char comm[16];
	/* oom_control.policy_name at kill time: the name really in force */
	char policy_name[OOMCTL_NAME_LEN];
};

/*
 * Failed selections in tumbling windows of OOMCTL_FAIL_WINDOW_S seconds,
 * CLOCK_BOOTTIME (bpf_ktime_get_boot_ns()), for status's warning.
 */
struct oomctl_failwin {
	__u64 start_ns;		/* first failure of the current window; 0: none */
	__u64 count;		/* failures in the current window */
	__u64 prev_count;	/* in the window before it, if it directly preceded */
	__u64 last_ns;		/* the last failure */
};

/* The one entry of map oomctl_state. */
struct oomctl_state {
	struct oomctl_stats stats;
	struct oomctl_victim last_victim;
	struct oomctl_failwin failwin;
};

/*
 * How a policy ranks one task: the result of the policy's one decision
 * function, which both its bpf_oom_evaluate_task program and its explain
 * iterator call. A candidate is ranked by the policy's rule (its
 * oomctl_policy_desc says how to read @key1 and @ref). Among candidates the
 * smallest @key1 wins, then the
 * largest @key2, then the smallest pid (so that the kernel's scan order
 * never decides); a candidate always beats a task left to the heuristic.
 */
enum oomctl_class {
	OOMCTL_SKIP = 0,	/* never chosen: @reason is an enum oomctl_skip */
	OOMCTL_HEURISTIC,	/* the kernel's badness decides (NO_BPF_POLICY) */
	OOMCTL_ABORT,		/* the OOM is aborted: nobody dies */
	OOMCTL_CANDIDATE,	/* ranked by the policy's rule: @reason says which */
};

/*
 * Why a task is never chosen (class OOMCTL_SKIP): the policy's rule, or the
 * kernel's own reason, with the values of the kernel's enum
 * bpf_oom_ineligible (the kfunc bpf_oom_task_info() gives it).
 */
enum oomctl_skip {
	OOMCTL_SKIP_RULE = 0,	/* the policy's rule passes it over */
	OOMCTL_SKIP_UNKILLABLE,	/* init or a kernel thread */
	OOMCTL_SKIP_VICTIM,	/* already a victim, still dying: the kernel waits */
	OOMCTL_SKIP_NO_MM,	/* no thread holds its memory: exiting */
	OOMCTL_SKIP_ADJ_MIN,	/* oom_score_adj -1000 */
	OOMCTL_SKIP_REAPED,	/* its memory was already reaped (MMF_OOM_SKIP) */
	OOMCTL_SKIP_VFORK,	/* in vfork(): its memory is its parent's */
};

struct oomctl_rank {
	__u32 class;		/* enum oomctl_class */
	__u32 reason;		/* SKIP: enum oomctl_skip */
	__u64 key1;
	__s64 key2;
	__u64 ref;		/* a cgroup id the reason names */
};

/*
 * One OOM decision, from ring buffer map oomctl_events. Numbered from 1 in
 * stats.events; a record that did not fit is counted in
 * stats.events_dropped, and shows as a gap.
 */
enum oomctl_event_kind {
	OOMCTL_EV_KILL = 1,	/* the scan's victim, killed */
	OOMCTL_EV_NO_VICTIM,	/* a scan chose no victim (rank: abort or not) */
	OOMCTL_EV_EXITING,	/* the scan's victim was already exiting: the
				 * kernel only marked it, nothing was killed */
	OOMCTL_EV_GROUP_KILL,	/* killed with the victim (memory.oom.group) */
	OOMCTL_EV_OVERRUN,	/* the policy ran past the kernel's time budget:
				 * the kernel heuristic decided the scan */
	OOMCTL_EV_PAUSE,	/* memcg @memcg_id's OOMs paused (ABORT) */
	OOMCTL_EV_RESUME,	/* ... and resumed after @paused_ns (@detail) */
};

/* oomctl_event.detail of OOMCTL_EV_RESUME: the kernel's
 * enum memcg_oom_resume_reason.
 */
enum oomctl_resume_reason {
	OOMCTL_RESUME_ROOM = 0,		/* memory uncharged, or the limit raised */
	OOMCTL_RESUME_KILL,		/* an OOM of the memcg killed a task */
	OOMCTL_RESUME_LAPSED,		/* no OOM of it aborted for 2 s */
};

struct oomctl_event {
	__u64 seq;
	__u64 time_ns;		/* CLOCK_BOOTTIME */
	__u32 kind;		/* enum oomctl_event_kind */
	__u32 pid;		/* the victim's thread-group id (kills) */
	__u64 memcg_id;		/* the OOMing memcg's cgroup id; 0: global OOM */
	__u64 cgroup_id;	/* the victim's cgroup */
	__u64 rss_pages;	/* the victim's anon + file + shmem pages */
	char comm[16];
	char policy_name[OOMCTL_NAME_LEN];
	/*
	 * How the policy ranked the victim: class OOMCTL_HEURISTIC when the
	 * kernel heuristic chose it (the policy selected no one, or the kill
	 * was not the scan's: a task already exiting, for instance). For a
	 * scan with no victim, class OOMCTL_ABORT if the policy aborted it.
	 */
	struct oomctl_rank rank;
	/* The best other candidate's key1 (valid when candidates > 1). */
	__u64 runner_up_key1;
	__u32 candidates;	/* tasks the policy ranked as candidates */
	__u32 detail;		/* RESUME: enum oomctl_resume_reason */
	__u64 paused_ns;	/* RESUME: how long the pause lasted */
};

/* Ring buffer size: 1,724 events of 144 bytes and an 8-byte header. */
#define OOMCTL_EVENTS_BYTES	(256 * 1024)

/*
 * explain: the iterator's input (map oomctl_explain_args, one entry,
 * written by oomctl under the pin directory's lock) and one record per
 * process it writes.
 */
struct oomctl_explain_args {
	__u64 memcg_id;		/* rank for an OOM of this cgroup; 0: global */
	__u64 totalpages;	/* oom_control.totalpages of such an OOM */
};

struct oomctl_explain_rec {
	__u32 pid;
	__s32 oom_score_adj;
	__u64 cgroup_id;
	__u64 rss_pages;
	__s64 badness;		/* the kernel's oom_badness() (0 if skipped) */
	char comm[16];
	struct oomctl_rank rank;
};

/* Map cgprio_prios: cgroup v2 id (__u64) -> priority (__u32). */
/* Map pid_targets: thread-group id (__u32) -> flags (__u32, unused, 1). */
/* Map rss_slices: cgroup v2 id (__u64) -> 1 (__u32): the slices. */
/* Map abort_scope: cgroup v2 id (__u64) -> 1 (__u32): OOMs to abort. */

#endif /* OOMCTL_H */
