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

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *cgroup_name(struct cgroup_map *cm, __u64 id)
{
	const char *p = id ? cgroup_map_path(cm, id, true) : NULL;

	return p ? p : "(removed cgroup)";
}

/*
 * @r, ranked by @p, in words into @buf. With @runner_up (events: the
 * scan's best other candidate's key1, when there was one), a rule that
 * ranks by a value (cgprio) says what it beat.
 */
void rank_text(const struct policy *p, const struct oomctl_rank *r,
	       const __u64 *runner_up, struct cgroup_map *cm, char *buf, size_t sz)
{
	const struct oomctl_policy_desc *d = &p->desc;
	size_t n;

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
	/* A candidate, in the words of @p's description. */
	n = snprintf(buf, sz, "%s", *d->rule_text ? d->rule_text : "candidate");
	if (d->flags & OOMCTL_DESC_RULE_VALUE) {
		if (runner_up && *runner_up > r->key1)
			n += snprintf(buf + n, n < sz ? sz - n : 0, " %llu < %llu",
				      (unsigned long long)r->key1,
				      (unsigned long long)*runner_up);
		else if (runner_up)
			n += snprintf(buf + n, n < sz ? sz - n : 0,
				      " %llu, tie broken by badness",
				      (unsigned long long)r->key1);
		else
			n += snprintf(buf + n, n < sz ? sz - n : 0, " %llu",
				      (unsigned long long)r->key1);
	}
	if (!*d->ref_key || n >= sz)
		return;
	if (!(d->flags & OOMCTL_DESC_REF_SET_ON))
		snprintf(buf + n, sz - n, " %s", cgroup_name(cm, r->ref));
	else if (r->ref)
		snprintf(buf + n, sz - n, " (set on %s)", cgroup_name(cm, r->ref));
	else
		snprintf(buf + n, sz - n, " (the default)");
}

/* @r as an object: class, rule or skip key, the values the rule used. */
struct json_object *rank_json(const struct policy *p, const struct oomctl_rank *r,
			      struct cgroup_map *cm)
{
	struct json_object *o = json_object_new_object();
	const char *path;

	json_object_object_add(o, "class", json_object_new_string(
			       r->class < N(class_names) ? class_names[r->class] : "unknown"));
	if (r->class == OOMCTL_SKIP)
		json_object_object_add(o, "skip", json_object_new_string(
				       r->reason < N(skips) && skips[r->reason].key ?
				       skips[r->reason].key : "unknown"));
	if (r->class != OOMCTL_CANDIDATE)
		return o;
	json_object_object_add(o, "rule", json_object_new_string(
			       *p->desc.rule ? p->desc.rule : "unknown"));
	if (p->desc.flags & OOMCTL_DESC_RULE_VALUE)
		json_object_object_add(o, p->desc.rule, json_object_new_int64(r->key1));
	if (*p->desc.ref_key) {
		path = r->ref ? cgroup_map_path(cm, r->ref, true) : NULL;
		json_object_object_add(o, p->desc.ref_key,
				       path ? json_object_new_string(path) : NULL);
	}
	return o;
}
