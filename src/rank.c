// SPDX-License-Identifier: GPL-2.0
/*
 * rank.c - a policy's rank of a task (struct oomctl_rank, filled by the
 * policy's one decision function in the kernel) in words and in JSON, for
 * oomctl events and oomctl explain.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "oomctl.h"

static const char *const class_names[] = {
	[OOMCTL_SKIP] = "skip",
	[OOMCTL_HEURISTIC] = "heuristic",
	[OOMCTL_ABORT] = "abort",
	[OOMCTL_CANDIDATE] = "candidate",
};

static const struct { const char *key, *text; } skips[] = {
	[OOMCTL_SKIP_RULE] = { "rule", "passed over by the policy" },
	[OOMCTL_SKIP_NO_MM] = { "no_mm", "no memory (a kernel thread, or exiting)" },
	[OOMCTL_SKIP_ADJ_MIN] = { "oom_score_adj_min", "oom_score_adj -1000" },
	[OOMCTL_SKIP_REAPED] = { "reaped", "its memory was already reaped" },
	[OOMCTL_SKIP_VFORK] = { "vfork", "in vfork(): its memory is its parent's" },
	[OOMCTL_SKIP_UNKILLABLE] = { "unkillable", "init or a kernel thread" },
	[OOMCTL_SKIP_VICTIM] = { "victim", "already a victim, still dying" },
};

static const char *const rule_names[] = {
	[OOMCTL_RULE_PRIO] = "prio",
	[OOMCTL_RULE_PID] = "pid",
	[OOMCTL_RULE_SLICE] = "slice",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *cgroup_name(struct cgroup_map *cm, __u64 id)
{
	const char *p = id ? cgroup_map_path(cm, id, true) : NULL;

	return p ? p : "(removed cgroup)";
}

/*
 * @r in words into @buf. With @runner_up (events: the scan's best other
 * candidate's key1, when there was one), cgprio says what it beat.
 */
void rank_text(const struct oomctl_rank *r, const __u64 *runner_up,
	       struct cgroup_map *cm, char *buf, size_t sz)
{
	switch (r->class) {
	case OOMCTL_SKIP:
		snprintf(buf, sz, "skipped: %s", r->reason < N(skips) && skips[r->reason].text ?
			 skips[r->reason].text : "unknown reason");
		return;
	case OOMCTL_HEURISTIC:
		snprintf(buf, sz, "fallback: kernel heuristic");
		return;
	case OOMCTL_ABORT:
		snprintf(buf, sz, "aborted by the policy");
		return;
	}
	switch (r->reason) {
	case OOMCTL_RULE_PRIO: {
		char from[4200] = "";
		int n;

		if (r->ref)
			snprintf(from, sizeof(from), " (set on %s)", cgroup_name(cm, r->ref));
		else
			snprintf(from, sizeof(from), " (the default)");
		if (runner_up && *runner_up > r->key1)
			n = snprintf(buf, sz, "cgroup prio %llu < %llu",
				     (unsigned long long)r->key1,
				     (unsigned long long)*runner_up);
		else if (runner_up)
			n = snprintf(buf, sz, "cgroup prio %llu, tie broken by badness",
				     (unsigned long long)r->key1);
		else
			n = snprintf(buf, sz, "cgroup prio %llu", (unsigned long long)r->key1);
		if (n > 0 && (size_t)n < sz)
			snprintf(buf + n, sz - n, "%s", from);
		return;
	}
	case OOMCTL_RULE_PID:
		snprintf(buf, sz, "listed pid");
		return;
	case OOMCTL_RULE_SLICE:
		snprintf(buf, sz, "largest RSS in slice %s", cgroup_name(cm, r->ref));
		return;
	}
	snprintf(buf, sz, "rule %u", r->reason);
}

/* @r as an object: class, rule or skip key, the values the rule used. */
struct json_object *rank_json(const struct oomctl_rank *r, struct cgroup_map *cm)
{
	struct json_object *o = json_object_new_object();
	const char *p;

	json_object_object_add(o, "class", json_object_new_string(
			       r->class < N(class_names) ? class_names[r->class] : "unknown"));
	if (r->class == OOMCTL_SKIP)
		json_object_object_add(o, "skip", json_object_new_string(
				       r->reason < N(skips) && skips[r->reason].key ?
				       skips[r->reason].key : "unknown"));
	if (r->class != OOMCTL_CANDIDATE)
		return o;
	json_object_object_add(o, "rule", json_object_new_string(
			       r->reason < N(rule_names) && rule_names[r->reason] ?
			       rule_names[r->reason] : "unknown"));
	if (r->reason == OOMCTL_RULE_PRIO) {
		json_object_object_add(o, "prio", json_object_new_int64(r->key1));
		p = r->ref ? cgroup_map_path(cm, r->ref, true) : NULL;
		json_object_object_add(o, "prio_from", p ? json_object_new_string(p) : NULL);
	}
	if (r->reason == OOMCTL_RULE_SLICE) {
		p = cgroup_map_path(cm, r->ref, true);
		json_object_object_add(o, "slice", p ? json_object_new_string(p) : NULL);
	}
	return o;
}
