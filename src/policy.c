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

static struct bpf_object *open_cgprio(void **skel)
{
	struct cgprio_bpf *s = cgprio_bpf__open();

	*skel = s;
	return s ? s->obj : NULL;
}

static void destroy_cgprio(void *skel)
{
	cgprio_bpf__destroy(skel);
}

static struct bpf_object *open_pid(void **skel)
{
	struct pid_bpf *s = pid_bpf__open();

	*skel = s;
	return s ? s->obj : NULL;
}

static void destroy_pid(void *skel)
{
	pid_bpf__destroy(skel);
}

const struct policy policies[] = {
	{
		.name = "cgprio",
		.id = OOMCTL_POLICY_CGPRIO,
		.summary = "a priority per cgroup v2; the lowest priority dies first",
		.map = "cgprio_prios",
		.has_default_prio = true,
		.open = open_cgprio,
		.destroy = destroy_cgprio,
	},
	{
		.name = "pid",
		.id = OOMCTL_POLICY_PID,
		.summary = "a set of target processes; a listed one dies first",
		.map = "pid_targets",
		.open = open_pid,
		.destroy = destroy_pid,
	},
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
