// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - the bundled policies. Their BPF objects are embedded as
 * skeletons (bpftool gen skeleton), so oomctl is a single binary with no
 * object file to find at run time. Everything else in oomctl handles a
 * policy generically through its bpf_object; this table is the only place
 * that knows the skeleton types.
 */
#include <string.h>
#include <bpf/libbpf.h>
#include "oomctl.h"
#include "cgprio.skel.h"
#include "pid.skel.h"
#include "rss-slice.skel.h"
#include "abort-all.skel.h"
#ifdef OOMCTL_TEST_POLICY
#include "refused.skel.h"
#endif

/* open_<policy>() and destroy_<policy>() around its skeleton type. */
#define SKELETON(policy)						\
static struct bpf_object *open_##policy(void **skel)			\
{									\
	struct policy##_bpf *s = policy##_bpf__open();			\
									\
	*skel = s;							\
	return s ? s->obj : NULL;					\
}									\
									\
static void destroy_##policy(void *skel)				\
{									\
	policy##_bpf__destroy(skel);					\
}

SKELETON(cgprio)
SKELETON(pid)
SKELETON(rss_slice)
SKELETON(abort_all)
#ifdef OOMCTL_TEST_POLICY
SKELETON(refused)
#endif

const struct policy policies[] = {
	{
		.name = "cgprio",
		.id = OOMCTL_POLICY_CGPRIO,
		.summary = "a priority per cgroup v2; the lowest priority dies first",
		.map = "cgprio_prios",
		.entries = "prios",
		.list = prio_entries,
		.has_default_prio = true,
		.open = open_cgprio,
		.destroy = destroy_cgprio,
	},
	{
		.name = "pid",
		.id = OOMCTL_POLICY_PID,
		.summary = "a set of target processes; a listed one dies first",
		.map = "pid_targets",
		.entries = "pids",
		.list = pid_entries,
		.open = open_pid,
		.destroy = destroy_pid,
	},
	{
		.name = "rss-slice",
		.id = OOMCTL_POLICY_RSS_SLICE,
		.summary = "the largest RSS inside the slices dies; the rest are spared",
		.map = "rss_slices",
		.entries = "slices",
		.list = cgroup_set_entries,
		.cgroup_opt = "slice",
		.open = open_rss_slice,
		.destroy = destroy_rss_slice,
	},
	{
		.name = "abort-all",
		.id = OOMCTL_POLICY_ABORT_ALL,
		.summary = "memcg OOMs kill nothing: the cgroup pauses until relieved",
		.map = "abort_scope",
		.entries = "scope",
		.list = cgroup_set_entries,
		.cgroup_opt = "cgroup",
		.scoping = true,
		.has_max_pause = true,
		.open = open_abort_all,
		.destroy = destroy_abort_all,
	},
#ifdef OOMCTL_TEST_POLICY
	{
		.name = "refused",
		.id = 0x7e57,
		.summary = "test only: the verifier refuses it",
		.map = "oomctl_state",
		.entries = "state",
		.list = cgroup_set_entries,
		.open = open_refused,
		.destroy = destroy_refused,
	},
#endif
};
const size_t nr_policies = sizeof(policies) / sizeof(policies[0]);

const struct policy *policy_by_name(const char *name)
{
	for (size_t i = 0; i < nr_policies; i++)
		if (!strcmp(policies[i].name, name))
			return &policies[i];
	return NULL;
}

const struct policy *policy_by_id(__u32 id)
{
	for (size_t i = 0; i < nr_policies; i++)
		if (policies[i].id == id)
			return &policies[i];
	return NULL;
}
